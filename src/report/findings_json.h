/* Shared by the findings JSON writers (findings_json.c, findings_cross.c). */
#ifndef CLARITY_REPORT_FINDINGS_JSON_H
#define CLARITY_REPORT_FINDINGS_JSON_H
#include "clarity/findings.h"
#include "util/jsonw.h"

/* Writes a finding's members from "evidence" to "action" (the object stays open). */
void clarity__report_finding_tail(struct jsonw *w, const struct clarity_finding *f);

#endif

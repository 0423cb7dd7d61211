/* /version: VersionInfo, {"spark": ...}. A History Server answers with its own build's
 * version; clarity answers with the release whose REST answers it reproduces
 * (CLARITY_SHS_SPARK_VERSION), so a client that picks features by version gets the ones
 * clarity serves. */
#include "shs/shs_internal.h"
#include "util/jsonw.h"

int clarity__shs_version(struct shs_req *r)
{
    clarity_jsonw_obj_begin(r->w);
    clarity_jsonw_kstr(r->w, "spark", CLARITY_SHS_SPARK_VERSION);
    clarity_jsonw_obj_end(r->w);
    return CLARITY_OK;
}

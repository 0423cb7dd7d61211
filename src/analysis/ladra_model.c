/* Root cause from the factor vector: the paper's weighted rules (Eq. 11-12, D17) and the GRNN
 * (Eq. 13-15) over stored training samples, with the model file that holds them. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/anomalies.h"
#include "clarity/grnn.h"

static const char *const class_names[LADRA_NCLASS] = {"normal", "cpu", "memory", "network", "disk"};
static const char *const factor_names[LADRA_NFACTOR] = {"DAR", "DAD", "DCO", "MCS", "ARS", "DMC", "DLD"};
const char *ladra_class_name(int c) { return c >= 0 && c < LADRA_NCLASS ? class_names[c] : "?"; }
const char *ladra_factor_name(int f) { return f >= 0 && f < LADRA_NFACTOR ? factor_names[f] : "?"; }

void ladra_rules(const double f[LADRA_NFACTOR], double score[4], double prob[4])
{
    score[0] = 0.3 * f[LADRA_DAR] + 0.3 * f[LADRA_DAD] + 0.2 * f[LADRA_DCO] + 0.2 * f[LADRA_MCS];
    score[1] = 0.25 * f[LADRA_DAR] + 0.25 * f[LADRA_DAD] + 0.5 * f[LADRA_MCS];
    score[2] = 0.1 * f[LADRA_DAD] + 0.4 * f[LADRA_ARS] + 0.5 * f[LADRA_DMC];
    score[3] = 0.2 * f[LADRA_DCO] + 0.2 * f[LADRA_MCS] + 0.6 * f[LADRA_DLD];
    for (int c = 0; c < 4; c++) prob[c] = score[c] > 1 ? 1 - 1 / score[c] : 0;   /* D17 clamp */
}

double ladra_tpr(double tp, double fn) { return tp + fn > 0 ? tp / (tp + fn) : NAN; }
double ladra_fpr(double fp, double tn) { return fp + tn > 0 ? fp / (fp + tn) : NAN; }
double ladra_fpr_paper(double fp, double tp, double tn) { return tp + tn > 0 ? fp / (tp + tn) : NAN; }
double ladra_precision(double tp, double fp) { return tp + fp > 0 ? tp / (tp + fp) : NAN; }

int ladra_model_add(struct ladra_model *m, const double x[LADRA_NFACTOR], int label, bool elo)
{
    if (m->n == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        void *p = realloc(m->s, nc * sizeof *m->s);
        if (!p) return -1;
        m->s = p, m->cap = nc;
    }
    struct ladra_sample *s = &m->s[m->n++];
    memcpy(s->x, x, sizeof s->x);
    s->label = label, s->eventlog_only = elo;
    return 0;
}

void ladra_model_free(struct ladra_model *m)
{
    free(m->s);
    m->s = NULL, m->n = m->cap = 0;
}

/* Text format, one sample a line, so a model can be diffed, reviewed and rebuilt:
 *   # comments (provenance)
 *   clarity.ladra-model/1 sigma 0.5 zscore 0
 *   log|eventlog <class> DAR DAD DCO MCS ARS DMC DLD */
int ladra_model_save(const struct ladra_model *m, const char *path, struct clarity_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return clarity_error_set(err, CLARITY_EIO, path, 0, 0, "cannot write: %s", strerror(errno));
    if (m->note[0]) fprintf(f, "# %s\n", m->note);
    fprintf(f, "clarity.ladra-model/1 sigma %g zscore %d\n", m->sigma, m->zscore ? 1 : 0);
    for (size_t i = 0; i < m->n; i++) {
        fprintf(f, "%s %s", m->s[i].eventlog_only ? "eventlog" : "log", ladra_class_name(m->s[i].label));
        for (int k = 0; k < LADRA_NFACTOR; k++) fprintf(f, " %.9g", m->s[i].x[k]);
        fputc('\n', f);
    }
    if (fclose(f)) return clarity_error_set(err, CLARITY_EIO, path, 0, 0, "cannot write: %s", strerror(errno));
    return 0;
}

int ladra_model_load(struct ladra_model *m, const char *path, struct clarity_error *err)
{
    memset(m, 0, sizeof *m);
    m->sigma = 0.5;
    FILE *f = fopen(path, "r");
    if (!f) return clarity_error_set(err, CLARITY_EIO, path, 0, 0, "cannot read: %s", strerror(errno));
    char line[1024], mode[16], cls[16];
    unsigned long ln = 0;
    bool header = false;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        if (line[0] == '#' || line[0] == '\n') continue;
        int z = 0;
        if (!header) {
            if (sscanf(line, "clarity.ladra-model/1 sigma %lf zscore %d", &m->sigma, &z) != 2 || m->sigma <= 0) {
                rc = clarity_error_set(err, CLARITY_EFORMAT, path, ln, 0, "not a clarity.ladra-model/1 file");
                break;
            }
            m->zscore = z, header = true;
            continue;
        }
        double x[LADRA_NFACTOR];
        if (sscanf(line, "%15s %15s %lf %lf %lf %lf %lf %lf %lf", mode, cls, &x[0], &x[1], &x[2], &x[3], &x[4], &x[5],
                   &x[6]) != 9) {
            rc = clarity_error_set(err, CLARITY_EFORMAT, path, ln, 0, "expected: log|eventlog CLASS and 7 factors");
            break;
        }
        int label = -1;
        for (int c = 0; c < LADRA_NCLASS; c++)
            if (!strcmp(cls, class_names[c])) label = c;
        if (label < 0 || (strcmp(mode, "log") && strcmp(mode, "eventlog"))) {
            rc = clarity_error_set(err, CLARITY_EFORMAT, path, ln, 0, "unknown mode or class");
            break;
        }
        if (ladra_model_add(m, x, label, !strcmp(mode, "eventlog"))) {
            rc = clarity_error_set(err, CLARITY_ENOMEM, path, ln, 0, "out of memory");
            break;
        }
    }
    fclose(f);
    if (!rc && !header) rc = clarity_error_set(err, CLARITY_EFORMAT, path, 0, 0, "empty model file");
    if (rc) ladra_model_free(m);
    return rc;
}

bool ladra_model_predict(const struct ladra_model *m, const double q[LADRA_NFACTOR], bool elo, double y[LADRA_NCLASS])
{
    size_t k = 0;
    for (size_t i = 0; i < m->n; i++) k += m->s[i].eventlog_only == elo;
    if (!k) return false;
    double *x = malloc(k * LADRA_NFACTOR * sizeof *x), mu[LADRA_NFACTOR] = {0}, sd[LADRA_NFACTOR], qq[LADRA_NFACTOR];
    int *lab = malloc(k * sizeof *lab);
    if (!x || !lab) return free(x), free(lab), false;
    size_t r = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->s[i].eventlog_only == elo) memcpy(x + r * LADRA_NFACTOR, m->s[i].x, sizeof m->s[i].x), lab[r++] = m->s[i].label;
    memcpy(qq, q, sizeof qq);
    if (m->zscore) {
        /* D13 alternative: ARS and DMC can reach the hundreds and would drown the others. */
        for (int d = 0; d < LADRA_NFACTOR; d++) {
            double s = 0, v = 0;
            for (size_t i = 0; i < k; i++) s += x[i * LADRA_NFACTOR + d];
            mu[d] = s / (double)k;
            for (size_t i = 0; i < k; i++) v += (x[i * LADRA_NFACTOR + d] - mu[d]) * (x[i * LADRA_NFACTOR + d] - mu[d]);
            sd[d] = sqrt(v / (double)k);
            if (sd[d] <= 0) sd[d] = 1;
            for (size_t i = 0; i < k; i++) x[i * LADRA_NFACTOR + d] = (x[i * LADRA_NFACTOR + d] - mu[d]) / sd[d];
            qq[d] = (qq[d] - mu[d]) / sd[d];
        }
    }
    grnn_predict(x, lab, k, LADRA_NFACTOR, LADRA_NCLASS, m->sigma, qq, y);
    free(x), free(lab);
    return true;
}

/* Root cause from the factor vector: the paper's weighted rules (Eq. 11-12; a score below 1
 * gives probability 0) and the GRNN (Eq. 13-15) over stored training samples, with the model
 * file that holds them. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clarity/anomalies.h"
#include "math/grnn.h"

static const char *const class_names[LADRA_NCLASS] = {"normal", "cpu", "memory", "network", "disk"};
static const char *const factor_names[LADRA_NFEAT] = {"DAR", "DAD", "DCO", "MCS", "ARS", "DMC", "DLD",
                                                      "CPE", "GCS", "FWV", "FWA", "SWT", "SLD", "FWB",
                                                      "eDCO", "eMCS", "eDMC"};
const char *clarity_ladra_class_name(int c) { return c >= 0 && c < LADRA_NCLASS ? class_names[c] : "?"; }
const char *clarity_ladra_factor_name(int f) { return f >= 0 && f < LADRA_NFEAT ? factor_names[f] : "?"; }

void clarity_ladra_rules(const double f[LADRA_NFACTOR], double score[4], double prob[4])
{
    score[0] = 0.3 * f[LADRA_DAR] + 0.3 * f[LADRA_DAD] + 0.2 * f[LADRA_DCO] + 0.2 * f[LADRA_MCS];
    score[1] = 0.25 * f[LADRA_DAR] + 0.25 * f[LADRA_DAD] + 0.5 * f[LADRA_MCS];
    score[2] = 0.1 * f[LADRA_DAD] + 0.4 * f[LADRA_ARS] + 0.5 * f[LADRA_DMC];
    score[3] = 0.2 * f[LADRA_DCO] + 0.2 * f[LADRA_MCS] + 0.6 * f[LADRA_DLD];
    for (int c = 0; c < 4; c++) prob[c] = score[c] > 1 ? 1 - 1 / score[c] : 0;   /* scores below 1: probability 0 */
}

double clarity_ladra_tpr(double tp, double fn) { return tp + fn > 0 ? tp / (tp + fn) : NAN; }
double clarity_ladra_fpr(double fp, double tn) { return fp + tn > 0 ? fp / (fp + tn) : NAN; }
double clarity_ladra_fpr_paper(double fp, double tp, double tn) { return tp + tn > 0 ? fp / (tp + tn) : NAN; }
double clarity_ladra_precision(double tp, double fp) { return tp + fp > 0 ? tp / (tp + fp) : NAN; }

int clarity_ladra_model_add(struct ladra_model *m, const double x[LADRA_NFEAT], int label, bool elo,
                    struct clarity_error *err)
{
    if (m->n == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        void *p = realloc(m->s, nc * sizeof *m->s);
        if (!p) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory adding a training sample");
        m->s = p, m->cap = nc;
    }
    struct ladra_sample *s = &m->s[m->n++];
    memcpy(s->x, x, sizeof s->x);
    s->label = label, s->eventlog_only = elo;
    return 0;
}

void clarity_ladra_model_free(struct ladra_model *m)
{
    free(m->s);
    m->s = NULL, m->n = m->cap = 0;
}

/* Text format, one sample a line, so a model can be diffed, reviewed and rebuilt:
 *   # comments (provenance)
 *   clarity.ladra-model/2 sigma 0.5 zscore 0 xsigma 1 features DAR DAD ... SLD
 *   log|eventlog <class> <one value per feature, in the header's order>
 * sigma and zscore apply to the paper's seven factors, xsigma to the extended set (always
 * z-scored). A /1 file (seven factors, no extended features) still loads: it can only be
 * used with --features paper. */
int clarity_ladra_model_write(const struct ladra_model *m, FILE *f, struct clarity_error *err)
{
    if (m->note[0]) fprintf(f, "# %s\n", m->note);
    fprintf(f, "clarity.ladra-model/2 sigma %g zscore %d xsigma %g features", m->sigma, m->zscore ? 1 : 0, m->xsigma);
    for (int k = 0; k < LADRA_NFEAT; k++) fprintf(f, " %s", factor_names[k]);
    fputc('\n', f);
    for (size_t i = 0; i < m->n; i++) {
        fprintf(f, "%s %s", m->s[i].eventlog_only ? "eventlog" : "log", clarity_ladra_class_name(m->s[i].label));
        for (int k = 0; k < LADRA_NFEAT; k++) fprintf(f, " %.9g", m->s[i].x[k]);
        fputc('\n', f);
    }
    if (ferror(f)) return clarity_error_set(err, CLARITY_EIO, NULL, 0, 0, "cannot write: %s", strerror(errno));
    return 0;
}

int clarity_ladra_model_save(const struct ladra_model *m, const char *path, struct clarity_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return clarity_error_set(err, CLARITY_EIO, path, 0, 0, "cannot write: %s", strerror(errno));
    int rc = clarity_ladra_model_write(m, f, err);
    if (fclose(f) && !rc) rc = clarity_error_set(err, CLARITY_EIO, NULL, 0, 0, "cannot write: %s", strerror(errno));
    if (rc && err) snprintf(err->file, sizeof err->file, "%s", path);
    return rc;
}

/* Header of either version; sets nfeat. The feature names of a /2 file must be ours, in our
 * order: a model built with other features would be silently wrong. */
static bool read_header(struct ladra_model *m, char *line)
{
    int z = 0, used = 0;
    if (sscanf(line, "clarity.ladra-model/1 sigma %lf zscore %d", &m->sigma, &z) == 2) {
        m->zscore = z, m->nfeat = LADRA_NFACTOR;
        return m->sigma > 0;
    }
    if (sscanf(line, "clarity.ladra-model/2 sigma %lf zscore %d xsigma %lf features%n", &m->sigma, &z, &m->xsigma,
               &used) != 3 || !used || m->sigma <= 0 || m->xsigma <= 0)
        return false;
    m->zscore = z;
    char *p = line + used, *save = NULL;
    int k = 0;
    for (char *tok = strtok_r(p, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save), k++)
        if (k >= LADRA_NFEAT || strcmp(tok, factor_names[k])) return false;
    m->nfeat = k;
    return k == LADRA_NFEAT;
}

int clarity_ladra_model_load(struct ladra_model *m, const char *path, struct clarity_error *err)
{
    memset(m, 0, sizeof *m);
    m->sigma = 0.5, m->xsigma = 1;
    FILE *f = fopen(path, "r");
    if (!f) return clarity_error_set(err, CLARITY_EIO, path, 0, 0, "cannot read: %s", strerror(errno));
    char line[2048], mode[16], cls[16];
    unsigned long ln = 0;
    bool header = false;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        if (line[0] == '#' || line[0] == '\n') continue;
        if (!header) {
            if (!read_header(m, line)) {
                rc = clarity_error_set(err, CLARITY_EFORMAT, path, ln, 0,
                                       "not a clarity.ladra-model/1 or /2 file with this build's features "
                                       "(rebuild it: scripts/train-ladra-model.sh)");
                break;
            }
            header = true;
            continue;
        }
        double x[LADRA_NFEAT];
        for (int k = 0; k < LADRA_NFEAT; k++) x[k] = 1;
        int used = 0, got = 0;
        char *p = line;
        if (sscanf(p, "%15s %15s%n", mode, cls, &used) == 2) {
            p += used;
            while (got < m->nfeat && sscanf(p, "%lf%n", &x[got], &used) == 1) p += used, got++;
        }
        if (got != m->nfeat) {
            rc = clarity_error_set(err, CLARITY_EFORMAT, path, ln, 0, "expected: log|eventlog CLASS and %d values",
                                   m->nfeat);
            break;
        }
        int label = -1;
        for (int c = 0; c < LADRA_NCLASS; c++)
            if (!strcmp(cls, class_names[c])) label = c;
        if (label < 0 || (strcmp(mode, "log") && strcmp(mode, "eventlog"))) {
            rc = clarity_error_set(err, CLARITY_EFORMAT, path, ln, 0, "unknown mode or class");
            break;
        }
        if (clarity_ladra_model_add(m, x, label, !strcmp(mode, "eventlog"), NULL)) {
            rc = clarity_error_set(err, CLARITY_ENOMEM, path, ln, 0, "out of memory");
            break;
        }
    }
    fclose(f);
    if (!rc && !header) rc = clarity_error_set(err, CLARITY_EFORMAT, path, 0, 0, "empty model file");
    if (rc) clarity_ladra_model_free(m);
    return rc;
}

int clarity_ladra_grnn_predict(const struct ladra_sample *train, size_t k, int features, double sigma, bool zscore,
                       const double q[LADRA_NFEAT], double y[LADRA_NCLASS], struct clarity_error *err)
{
    /* a training set holds one mode's samples (the callers filter by mode) */
    size_t dim = features == LADRA_FEATURES_PAPER ? LADRA_NFACTOR
               : (size_t)ladra_nfeat_mode(k && train[0].eventlog_only);
    double *x = malloc((k ? k : 1) * dim * sizeof *x), qq[LADRA_NFEAT];
    int *lab = malloc((k ? k : 1) * sizeof *lab);
    if (!x || !lab) {
        free(x), free(lab);
        return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in LADRA");
    }
    for (size_t i = 0; i < k; i++) memcpy(x + i * dim, train[i].x, dim * sizeof *x), lab[i] = train[i].label;
    memcpy(qq, q, dim * sizeof *qq);
    if (zscore && k) {
        /* z-scores on the training samples instead of the paper's raw factors: ARS and DMC
         * can reach the hundreds and would drown the others; the extended ratios have very
         * different spreads too. */
        for (size_t d = 0; d < dim; d++) {
            double s = 0, v = 0, mu, sd;
            for (size_t i = 0; i < k; i++) s += x[i * dim + d];
            mu = s / (double)k;
            for (size_t i = 0; i < k; i++) v += (x[i * dim + d] - mu) * (x[i * dim + d] - mu);
            sd = sqrt(v / (double)k);
            if (sd <= 0) sd = 1;
            for (size_t i = 0; i < k; i++) x[i * dim + d] = (x[i * dim + d] - mu) / sd;
            qq[d] = (qq[d] - mu) / sd;
        }
    }
    clarity_grnn_predict(x, lab, k, dim, LADRA_NCLASS, sigma, qq, y);
    free(x), free(lab);
    return 0;
}

int clarity_ladra_verdict(const double y[LADRA_NCLASS], double min_cause)
{
    int b = 0;
    for (int c = 1; c < LADRA_NCLASS; c++)
        if (y[c] > y[b]) b = c;
    return b != LADRA_NORMAL && y[b] < min_cause ? LADRA_NORMAL : b;
}

int clarity_ladra_model_predict(const struct ladra_model *m, const double q[LADRA_NFEAT], bool elo, int features,
                        double y[LADRA_NCLASS], struct clarity_error *err)
{
    if (features == LADRA_FEATURES_EXTENDED && m->nfeat < LADRA_NFEAT)
        return clarity_error_set(err, CLARITY_ENOTFOUND, NULL, 0, 0,
                                 "the model has only the paper's features (a clarity.ladra-model/1 file)");
    size_t k = 0;
    for (size_t i = 0; i < m->n; i++) k += m->s[i].eventlog_only == elo;
    if (!k)
        return clarity_error_set(err, CLARITY_ENOTFOUND, NULL, 0, 0, "the model has no %s sample",
                                 elo ? "event-log-only" : "log-based");
    struct ladra_sample *t = malloc(k * sizeof *t);
    if (!t) return clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in LADRA");
    size_t r = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->s[i].eventlog_only == elo) t[r++] = m->s[i];
    bool paper = features == LADRA_FEATURES_PAPER;
    int rc = clarity_ladra_grnn_predict(t, k, features, paper ? m->sigma : m->xsigma, paper ? m->zscore : true, q, y, err);
    free(t);
    return rc;
}

int clarity_ladra_model_distance(const struct ladra_model *m, const double q[LADRA_NFEAT], bool elo, int features,
                                 double *dist, struct clarity_error *err)
{
    *dist = INFINITY;
    if (features == LADRA_FEATURES_EXTENDED && m->nfeat < LADRA_NFEAT)
        return clarity_error_set(err, CLARITY_ENOTFOUND, NULL, 0, 0, "the model has only the paper's features");
    bool paper = features == LADRA_FEATURES_PAPER, z = paper ? m->zscore : true;
    double sigma = paper ? m->sigma : m->xsigma;
    size_t dim = paper ? LADRA_NFACTOR : (size_t)ladra_nfeat_mode(elo), k = 0;
    double mu[LADRA_NFEAT] = {0}, sd[LADRA_NFEAT];
    for (size_t i = 0; i < m->n; i++)
        if (m->s[i].eventlog_only == elo) {
            k++;
            for (size_t d = 0; d < dim; d++) mu[d] += m->s[i].x[d];
        }
    if (!k) return clarity_error_set(err, CLARITY_ENOTFOUND, NULL, 0, 0, "the model has no sample of this mode");
    /* the same z-scores as the GRNN's (population sd over the mode's samples, 1 when constant) */
    for (size_t d = 0; d < dim; d++) {
        mu[d] /= (double)k;
        double v = 0;
        for (size_t i = 0; i < m->n; i++)
            if (m->s[i].eventlog_only == elo) v += (m->s[i].x[d] - mu[d]) * (m->s[i].x[d] - mu[d]);
        sd[d] = sqrt(v / (double)k);
        if (!z) mu[d] = 0, sd[d] = 1;
        else if (sd[d] <= 0) sd[d] = 1;
    }
    double best = INFINITY;
    for (size_t i = 0; i < m->n; i++) {
        if (m->s[i].eventlog_only != elo) continue;
        double s2 = 0;
        for (size_t d = 0; d < dim; d++) {
            double a = (q[d] - m->s[i].x[d]) / sd[d];   /* (q - mu)/sd - (x - mu)/sd */
            s2 += a * a;
        }
        if (s2 < best) best = s2;
    }
    *dist = sqrt(best) / (sigma > 0 ? sigma : 1);
    return 0;
}

/* The paper's evaluation protocol for the root-cause models (LADRA section 7.4, Table 5): random
 * splits of the labelled runs, 1/3 to test and 2/3 to train, repeated and averaged. Runs of
 * one mode only (a run's log and event-log samples must not sit on both sides). */
#include <stdlib.h>
#include <string.h>
#include "clarity/anomalies.h"

/* splitmix64: the generator's state lives in the caller, so splits are reproducible: the
 * same seed gives the same averages on every run (a unit test checks it). */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int argmax(const double *p, int n)
{
    int b = 0;
    for (int i = 1; i < n; i++)
        if (p[i] > p[b]) b = i;
    return b;
}

static int rules_class(const double *f)
{
    double s[4], p[4], y[LADRA_NCLASS], mx = 0;
    clarity_ladra_rules(f, s, p);
    for (int c = 0; c < 4; c++) mx = p[c] > mx ? p[c] : mx, y[c + 1] = p[c];
    y[LADRA_NORMAL] = 1 - mx;
    return argmax(y, LADRA_NCLASS);
}

int clarity_ladra_cv(const struct ladra_model *m, bool elo, size_t splits, uint64_t seed, double min_cause,
             struct ladra_cv_result *r, struct clarity_error *err)
{
    memset(r, 0, sizeof *r);
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++) n += m->s[i].eventlog_only == elo;
    struct ladra_sample *all = malloc((n ? n : 1) * sizeof *all), *train = malloc((n ? n : 1) * sizeof *train);
    size_t *ix = malloc((n ? n : 1) * sizeof *ix);
    int rc = 0;
    if (!all || !train || !ix) {
        rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory in LADRA");
        goto out;
    }
    size_t k = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->s[i].eventlog_only == elo) all[k] = m->s[i], r->per_class[all[k].label]++, k++;
    r->samples = n, r->splits = splits;
    size_t ntest = n / 3;
    uint64_t st = seed;
    for (size_t sp = 0; sp < splits && ntest && n > ntest && !rc; sp++) {
        for (size_t i = 0; i < n; i++) ix[i] = i;
        for (size_t i = n - 1; i > 0; i--) {   /* Fisher-Yates */
            size_t j = (size_t)(next(&st) % (i + 1)), t = ix[i];
            ix[i] = ix[j], ix[j] = t;
        }
        for (size_t i = ntest; i < n; i++) train[i - ntest] = all[ix[i]];
        size_t tp[LADRA_CV_NMETHOD][LADRA_NCLASS] = {{0}}, fp[LADRA_CV_NMETHOD][LADRA_NCLASS] = {{0}},
               fn[LADRA_CV_NMETHOD][LADRA_NCLASS] = {{0}};
        for (size_t t = 0; t < ntest && !rc; t++) {
            const struct ladra_sample *q = &all[ix[t]];
            int pred[LADRA_CV_NMETHOD];
            double y[LADRA_NCLASS];
            if ((rc = clarity_ladra_grnn_predict(train, n - ntest, LADRA_FEATURES_EXTENDED, m->xsigma, true, q->x, y, err)))
                break;
            pred[LADRA_CV_GRNN_EXTENDED] = argmax(y, LADRA_NCLASS);
            pred[LADRA_CV_GRNN_CONFIDENT] = clarity_ladra_verdict(y, min_cause);
            if ((rc = clarity_ladra_grnn_predict(train, n - ntest, LADRA_FEATURES_PAPER, m->sigma, m->zscore, q->x, y, err)))
                break;
            pred[LADRA_CV_GRNN_PAPER] = argmax(y, LADRA_NCLASS);
            pred[LADRA_CV_RULES] = rules_class(q->x);
            for (int me = 0; me < LADRA_CV_NMETHOD; me++) {
                if (pred[me] == q->label) tp[me][q->label]++;
                else fp[me][pred[me]]++, fn[me][q->label]++;
            }
        }
        for (int me = 0; me < LADRA_CV_NMETHOD; me++)
            for (int c = 0; c < LADRA_NCLASS; c++) {
                if (tp[me][c] + fp[me][c]) {
                    r->precision[me][c] += (double)tp[me][c] / (double)(tp[me][c] + fp[me][c]);
                    r->p_defined[me][c]++;
                }
                if (tp[me][c] + fn[me][c]) r->recall[me][c] += (double)tp[me][c] / (double)(tp[me][c] + fn[me][c]);
            }
        for (int c = 0; c < LADRA_NCLASS; c++) r->r_defined[c] += tp[0][c] + fn[0][c] > 0;
    }
    for (int me = 0; me < LADRA_CV_NMETHOD; me++)
        for (int c = 0; c < LADRA_NCLASS; c++) {
            r->precision[me][c] = r->p_defined[me][c] ? r->precision[me][c] / (double)r->p_defined[me][c] : -1;
            r->recall[me][c] = r->r_defined[c] ? r->recall[me][c] / (double)r->r_defined[c] : -1;
        }
out:
    free(all), free(train), free(ix);
    return rc;
}

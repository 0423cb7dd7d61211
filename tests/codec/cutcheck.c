/* cutcheck UNITS CUT ORIGINAL DECODED STATUS: the facts tests/codec/run.sh judges a cut by,
 * in one process (it took ten: awk, stat, head, tr, wc, cmp, sed, each a start of its own, for
 * each of about 420 cuts; those starts were about two thirds of a cut's CPU, the ASan
 * decoder's run the rest). Prints one line:
 *   must clean got want_lines got_lines prefix truncated
 * must: the original's bytes held by the framing units wholly before the cut (the last unit
 *   end in UNITS, lines "compressed_end original_end clean", at or before CUT);
 * clean: 1 when the cut falls exactly on a unit end marked clean;
 * got: DECODED's size; want_lines, got_lines: the newlines in the original's first must
 *   bytes and in DECODED;
 * prefix: 1 when DECODED is no longer than the original and equal to its start, byte for byte;
 * truncated: the value of the first "truncated=" field of STATUS (the decoder's stderr), or
 *   "-" when it has none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, const char *path)
{
    fprintf(stderr, "cutcheck: %s: %s\n", what, path);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: cutcheck UNITS CUT ORIGINAL DECODED STATUS\n");
        return 2;
    }
    long long cut = atoll(argv[2]), must = 0;
    int clean = 0;
    FILE *u = fopen(argv[1], "r");
    if (!u) return fail("cannot read", argv[1]);
    long long zend, oend;
    int cl;
    char line[4096];
    while (fgets(line, sizeof line, u)) {
        cl = 0;
        int n = sscanf(line, "%lld %lld %d", &zend, &oend, &cl);
        if (n < 2) continue;
        if (zend <= cut) must = oend;
        if (n == 3 && zend == cut && cl == 1) clean = 1;
    }
    fclose(u);

    FILE *o = fopen(argv[3], "rb"), *d = fopen(argv[4], "rb");
    if (!o) return fail("cannot read", argv[3]);
    if (!d) return fail("cannot read", argv[4]);
    long long got = 0, want_lines = 0, got_lines = 0, pos = 0;
    int prefix = 1, co = 0;
    int cd;
    while ((cd = getc(d)) != EOF) {
        got++;
        if (cd == '\n') got_lines++;
        co = o ? getc(o) : EOF;
        if (co == EOF || co != cd) prefix = 0;
        if (co != EOF && pos < must && co == '\n') want_lines++;
        if (co != EOF) pos++;
    }
    /* the original's newlines in its first must bytes that DECODED did not reach */
    while (pos < must && (co = getc(o)) != EOF) {
        if (co == '\n') want_lines++;
        pos++;
    }
    fclose(o);
    fclose(d);

    char truncated[64] = "-";
    FILE *s = fopen(argv[5], "r");
    if (!s) return fail("cannot read", argv[5]);
    while (!strcmp(truncated, "-") && fgets(line, sizeof line, s)) {
        for (char *p = strstr(line, "truncated="); p; p = strstr(p + 1, "truncated=")) {
            if (p != line && p[-1] != ' ') continue;
            p += strlen("truncated=");
            size_t k = strcspn(p, " \n");
            if (k >= sizeof truncated) k = sizeof truncated - 1;
            memcpy(truncated, p, k);
            truncated[k] = 0;
            break;
        }
    }
    fclose(s);
    printf("%lld %d %lld %lld %lld %d %s\n", must, clean, got, want_lines, got_lines, prefix, truncated);
    return 0;
}

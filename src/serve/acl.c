/* Who may see an application, as the History Server decides it (FsHistoryProvider's security
 * manager for an attempt, SecurityManager.checkUIViewPermissions):
 *   admins  = the server's admin users (spark.history.ui.admin.acls) + the log's spark.admin.acls
 *   viewers = admins + the application's owner (sparkUser) + the log's spark.ui.view.acls
 *   groups  = the server's admin groups + the log's spark.admin.acls.groups
 *             + the log's spark.ui.view.acls.groups
 * and a user may view when ACLs are off, a list holds "*", the user is a viewer, or one of the
 * user's groups is in the groups list. Lists are comma-separated, blanks trimmed, empty items
 * dropped (Spark's stringToSeq). The log's own spark.acls.enable is not consulted: SHS replaces
 * it with its own spark.history.ui.acls.enable (here --acl), since the history server, not the
 * application, decides who reads its history.
 *
 * Two decisions differ from SHS: a request that names no user is refused (SHS lets it through,
 * as its check passes for a null user: behind a proxy that failed to set the header that would
 * show every application), and the listing leaves out what the user may not view (SHS lists
 * every application to everyone; the listing's names and owners are themselves information).
 *
 * Groups come from --groups-file in /etc/group's format (name:password:gid:user,user,...):
 * a user's groups are those that list it. Without the file no user has a group, so only the
 * user lists and "*" in a group list apply. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "serve/serve_internal.h"

struct serve_groups {
    char **user, **group;   /* pairs: user is a member of group */
    size_t n, cap;
};

void clarity__serve_groups_free(struct serve_groups *g)
{
    if (!g) return;
    for (size_t i = 0; i < g->n; i++) {
        free(g->user[i]);
        free(g->group[i]);
    }
    free(g->user);
    free(g->group);
    free(g);
}

static int groups_add(struct serve_groups *g, const char *user, size_t ulen, const char *group)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 64;
        char **u = realloc(g->user, cap * sizeof *u);
        if (!u) return -1;
        g->user = u;
        char **gr = realloc(g->group, cap * sizeof *gr);
        if (!gr) return -1;
        g->group = gr;
        g->cap = cap;
    }
    g->user[g->n] = strndup(user, ulen);
    g->group[g->n] = strdup(group);
    if (!g->user[g->n] || !g->group[g->n]) {
        free(g->user[g->n]);
        free(g->group[g->n]);
        return -1;
    }
    g->n++;
    return 0;
}

int clarity__serve_groups_load(const char *path, struct serve_groups **out, struct clarity_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f) return clarity_error_set(err, CLARITY_EUSAGE, path, 0, 0, "cannot read the groups file");
    struct serve_groups *g = calloc(1, sizeof *g);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    uint64_t no = 0;
    int rc = g ? CLARITY_OK : clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
    while (rc == CLARITY_OK && (len = getline(&line, &cap, f)) >= 0) {
        no++;
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (!len || line[0] == '#') continue;
        /* name:password:gid:members */
        char *f1 = strchr(line, ':'), *f2 = f1 ? strchr(f1 + 1, ':') : NULL, *f3 = f2 ? strchr(f2 + 1, ':') : NULL;
        if (!f1 || !f3 || f1 == line) {
            rc = clarity_error_set(err, CLARITY_EUSAGE, path, no, 0,
                                   "not a group line (name:password:gid:user,user,...)");
            break;
        }
        *f1 = 0;
        for (const char *m = f3 + 1; *m;) {
            size_t n = strcspn(m, ",");
            const char *b = m, *e = m + n;
            while (b < e && (*b == ' ' || *b == '\t')) b++;
            while (e > b && (e[-1] == ' ' || e[-1] == '\t')) e--;
            if (e > b && groups_add(g, b, (size_t)(e - b), line) != 0) {
                rc = clarity_error_set(err, CLARITY_ENOMEM, NULL, 0, 0, "out of memory");
                break;
            }
            m += n + (m[n] == ',');
        }
    }
    free(line);
    fclose(f);
    if (rc != CLARITY_OK) {
        clarity__serve_groups_free(g);
        return rc;
    }
    *out = g;
    return CLARITY_OK;
}

/* Whether the comma-separated list holds name (or "*" when star). */
static bool in_list(const char *list, const char *name, bool star)
{
    if (!list) return false;
    size_t nl = name ? strlen(name) : 0;
    for (const char *m = list; *m;) {
        size_t n = strcspn(m, ",");
        const char *b = m, *e = m + n;
        while (b < e && (*b == ' ' || *b == '\t')) b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t')) e--;
        size_t k = (size_t)(e - b);
        if (star && k == 1 && *b == '*') return true;
        if (name && k == nl && k && !memcmp(b, name, k)) return true;
        m += n + (m[n] == ',');
    }
    return false;
}

static bool user_in_group_list(const struct serve_groups *g, const char *user, const char *list)
{
    if (!g || !list) return false;
    for (size_t i = 0; i < g->n; i++)
        if (!strcmp(g->user[i], user) && in_list(list, g->group[i], false)) return true;
    return false;
}

bool clarity__serve_acl_allows(const struct clarity_server *s, const struct serve_entry *e, const char *user)
{
    if (!s->opt.acl) return true;
    if (!user || !e->acl_known) return false;   /* no user named, or the ACLs not read yet: fail closed */
    const struct serve_acl_props *a = &e->acl;
    const char *users[] = {s->opt.admin_acls, a->admin, a->view};
    const char *groups[] = {s->opt.admin_acls_groups, a->admin_groups, a->view_groups};
    for (size_t i = 0; i < 3; i++)
        if (in_list(users[i], user, true) || in_list(groups[i], NULL, true)) return true;
    if (e->info.user && !strcmp(e->info.user, user)) return true;
    for (size_t i = 0; i < 3; i++)
        if (user_in_group_list(s->groups, user, groups[i])) return true;
    return false;
}

void clarity__serve_acl_props_free(struct serve_acl_props *p)
{
    free(p->view);
    free(p->view_groups);
    free(p->admin);
    free(p->admin_groups);
    memset(p, 0, sizeof *p);
}

int clarity__serve_acl_props_copy(struct serve_acl_props *dst, const struct serve_acl_props *src)
{
    const char *from[4] = {src->view, src->view_groups, src->admin, src->admin_groups};
    char **to[4] = {&dst->view, &dst->view_groups, &dst->admin, &dst->admin_groups};
    int rc = 0;
    for (size_t i = 0; i < 4; i++) {
        *to[i] = from[i] ? strdup(from[i]) : NULL;
        if (from[i] && !*to[i]) rc = -1;
    }
    return rc;
}

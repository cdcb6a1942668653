/*
 * punto.analysis._kernel: exact counts of baccarat coups by shoe composition.
 *
 * This kernel knows no drawing rule and no wager.  The Table of Play comes in
 * as two byte tables built by punto.analysis.kernel from punto.rules.tableau:
 *
 *   draws[p*10 + b]            1 when the Player draws on two-card totals p, b
 *   draws[100 + (p*10+b)*11+t] 1 when the Banker draws on two-card totals p, b
 *                              and the Player's third card t (t = 10: stood)
 *
 * and wagers come in as a "plan": pairs (class or pattern, slot) built by
 * calling the wager kinds once per coup class or pair pattern in Python.
 *
 * Every count is a number of ordered six-card sequences: a coup of k cards is
 * weighted by the falling product of the cards left for the 6 - k unused
 * positions.  Orderings of the same cards in a hand carry the same weight, so
 * the first two cards of each hand are enumerated as unordered pairs of point
 * values (55 x 55) with multiplicity 2 for two different values.
 *
 * Arithmetic is unsigned 64-bit, modulo 2^64.  The kernel takes only shoes
 * whose number of ordered six-card sequences is below 2^64 (at most 1627
 * cards, over 31 decks); every count is at most that number, so every result
 * is exact even where a product on the way wraps around.  Larger shoes are
 * left to the pure-Python enumerator (punto.analysis.enumeration).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define NCLASSES 400
#define NPATHS 12100 /* [p2][b2][e][f], e, f = 10: no third card */
#define NTUPLES 28561 /* 13^4 ordered ranks of the first four cards */
#define DRAWS_SIZE (100 + 1100)
#define MAX_CARDS 1627 /* the largest N with N(N-1)...(N-5) < 2^64 */

static int class_index(int p, int b, int pc, int bc) {
    return ((p * 10 + b) * 2 + (pc - 2)) * 2 + (bc - 2);
}

/* Read 13 rank counts; fill rank counts, value counts and the total. */
static int read_counts(PyObject *obj, int64_t ranks[13], int64_t values[10], int64_t *total) {
    PyObject *seq = PySequence_Fast(obj, "counts must be a sequence of 13 integers");
    if (seq == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 13) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "counts must have 13 entries (Ace to King)");
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    int64_t n = 0;
    memset(values, 0, 10 * sizeof(int64_t));
    for (int r = 0; r < 13; r++) {
        long long c = PyLong_AsLongLong(items[r]);
        if (c == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (c < 0 || c > MAX_CARDS) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "each count must be between 0 and 1627");
            return -1;
        }
        ranks[r] = c;
        values[r < 9 ? r + 1 : 0] += c; /* Ace..Nine = 1..9, Ten..King = 0 */
        n += c;
    }
    Py_DECREF(seq);
    if (n < 6 || n > MAX_CARDS) {
        PyErr_SetString(PyExc_ValueError, "the kernel takes 6 to 1627 cards");
        return -1;
    }
    *total = n;
    return 0;
}

static const uint8_t *read_draws(PyObject *obj) {
    if (!PyBytes_Check(obj) || PyBytes_GET_SIZE(obj) != DRAWS_SIZE) {
        PyErr_SetString(PyExc_ValueError, "draws must be the 1200-byte Table of Play");
        return NULL;
    }
    return (const uint8_t *)PyBytes_AS_STRING(obj);
}

static PyObject *list_u64(const uint64_t *v, Py_ssize_t n) {
    PyObject *list = PyList_New(n);
    if (list == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyLong_FromUnsignedLongLong(v[i]);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, item);
    }
    return list;
}

/*
 * The enumeration.  With paths == NULL it accumulates the 400 coup classes;
 * otherwise the 12100 paths (two-card totals and third cards).
 *
 * The first four cards are enumerated as unordered pairs per hand; for each
 * pair of two-card totals (p, b) the loop gathers the moments of the
 * four-card weight W over the cards m_v of each value they use:
 *
 *   S0 = sum W,   S1[v] = sum W m_v,   S2[v][w] = sum W m_v m_w.
 *
 * With n_v cards of value v in the shoe, the third cards then follow
 * without enumerating again: sum W (n_e - m_e) = n_e S0 - S1[e] = L_e, and
 * sum W (n_e - m_e)(n_f - m_f - [e = f]) = n_f L_e - n_e S1[f] + S2[e][f]
 * - [e = f] L_e.
 */
static void enumerate_coups(const int64_t n[10], int64_t total, const uint8_t *draws,
                            uint64_t *classes, uint64_t *paths) {
    const uint8_t *pd = draws, *bd = draws + 100;
    const uint64_t n4 = (uint64_t)(total - 4), n5 = (uint64_t)(total - 5);
    uint64_t s0[100] = {0}, s1[100][10] = {{0}}, s2[100][10][10] = {{{0}}};
    int64_t used[10] = {0};
    for (int a = 0; a < 10; a++) {
        if (n[a] <= 0) continue;
        for (int c = a; c < 10; c++) {
            int64_t kc = n[c] - (c == a);
            if (kc <= 0) continue;
            uint64_t wp = (uint64_t)n[a] * (uint64_t)kc * (a == c ? 1u : 2u);
            int p = (a + c) % 10;
            used[a]++;
            used[c]++;
            for (int b = 0; b < 10; b++) {
                int64_t kb = n[b] - used[b];
                if (kb <= 0) continue;
                for (int d = b; d < 10; d++) {
                    int64_t kd = n[d] - used[d] - (d == b);
                    if (kd <= 0) continue;
                    uint64_t w = wp * (uint64_t)kb * (uint64_t)kd * (b == d ? 1u : 2u);
                    int pb = p * 10 + (b + d) % 10;
                    const int v[4] = {a, c, b, d};
                    s0[pb] += w;
                    for (int i = 0; i < 4; i++) s1[pb][v[i]] += w;
                    if (pd[pb])
                        for (int i = 0; i < 4; i++)
                            for (int j = 0; j < 4; j++) s2[pb][v[i]][v[j]] += w;
                }
            }
            used[a]--;
            used[c]--;
        }
    }
    for (int pb = 0; pb < 100; pb++) {
        if (s0[pb] == 0) continue;
        const int p = pb / 10, bt = pb % 10;
        uint64_t *path = paths ? paths + pb * 121 : NULL;
        if (!pd[pb]) {
            if (!bd[pb * 11 + 10]) {
                uint64_t w = s0[pb] * n4 * n5;
                if (path) path[10 * 11 + 10] += w;
                else classes[class_index(p, bt, 2, 2)] += w;
            } else {
                for (int f = 0; f < 10; f++) {
                    uint64_t w = ((uint64_t)n[f] * s0[pb] - s1[pb][f]) * n5;
                    if (path) path[10 * 11 + f] += w;
                    else classes[class_index(p, (bt + f) % 10, 2, 3)] += w;
                }
            }
            continue;
        }
        for (int e = 0; e < 10; e++) {
            const uint64_t le = (uint64_t)n[e] * s0[pb] - s1[pb][e];
            const int pe = (p + e) % 10;
            if (!bd[pb * 11 + e]) {
                if (path) path[e * 11 + 10] += le * n5;
                else classes[class_index(pe, bt, 3, 2)] += le * n5;
                continue;
            }
            for (int f = 0; f < 10; f++) {
                uint64_t w = (uint64_t)n[f] * le - (uint64_t)n[e] * s1[pb][f] + s2[pb][e][f];
                if (f == e) w -= le; /* the Player's third card is gone */
                if (path) path[e * 11 + f] += w;
                else classes[class_index(pe, (bt + f) % 10, 3, 3)] += w;
            }
        }
    }
}

/*
 * Pair patterns: counts of the ordered ranks of the first four cards (Player,
 * Banker, Player, Banker), gathered by pattern id, times (N-4)(N-5).  With
 * symmetric set, the hands' two cards are enumerated unordered (the caller
 * has checked that every wager it asks about reads a hand's two cards as a
 * set); the pattern of the sorted ordering stands for both orderings.
 */
static int enumerate_patterns(const int64_t r[13], int64_t total, const uint16_t *table,
                              int symmetric, uint64_t *out, int npatterns) {
    int bad = 0;
    const uint64_t rest = (uint64_t)(total - 4) * (uint64_t)(total - 5);
    int64_t used[13] = {0};
    for (int r1 = 0; r1 < 13; r1++) {
        if (r[r1] <= 0) continue;
        used[r1]++;
        for (int r2 = 0; r2 < 13; r2++) {
            int64_t k2 = r[r2] - used[r2];
            if (k2 <= 0) continue;
            uint64_t w2 = (uint64_t)r[r1] * (uint64_t)k2;
            used[r2]++;
            for (int r3 = symmetric ? r1 : 0; r3 < 13; r3++) {
                int64_t k3 = r[r3] - used[r3];
                if (k3 <= 0) continue;
                uint64_t w3 = w2 * (uint64_t)k3 * ((symmetric && r3 != r1) ? 2u : 1u);
                used[r3]++;
                const uint16_t *row = table + ((r1 * 13 + r2) * 13 + r3) * 13;
                for (int r4 = symmetric ? r2 : 0; r4 < 13; r4++) {
                    int64_t k4 = r[r4] - used[r4];
                    if (k4 <= 0) continue;
                    uint64_t w4 = w3 * (uint64_t)k4 * ((symmetric && r4 != r2) ? 2u : 1u);
                    if (row[r4] < npatterns) out[row[r4]] += w4;
                    else bad = 1;
                }
                used[r3]--;
            }
            used[r2]--;
        }
        used[r1]--;
    }
    for (int i = 0; i < npatterns; i++) out[i] *= rest;
    if (bad) PyErr_SetString(PyExc_ValueError, "the pattern table has more patterns than given");
    return bad ? -1 : 0;
}

static PyObject *py_class_counts(PyObject *self, PyObject *args) {
    PyObject *counts, *draws_obj;
    int64_t ranks[13], values[10], total;
    if (!PyArg_ParseTuple(args, "OO:class_counts", &counts, &draws_obj)) return NULL;
    if (read_counts(counts, ranks, values, &total) < 0) return NULL;
    const uint8_t *draws = read_draws(draws_obj);
    if (draws == NULL) return NULL;
    uint64_t classes[NCLASSES];
    memset(classes, 0, sizeof classes);
    enumerate_coups(values, total, draws, classes, NULL);
    return list_u64(classes, NCLASSES);
}

static PyObject *py_path_counts(PyObject *self, PyObject *args) {
    PyObject *counts, *draws_obj;
    int64_t ranks[13], values[10], total;
    if (!PyArg_ParseTuple(args, "OO:path_counts", &counts, &draws_obj)) return NULL;
    if (read_counts(counts, ranks, values, &total) < 0) return NULL;
    const uint8_t *draws = read_draws(draws_obj);
    if (draws == NULL) return NULL;
    uint64_t *paths = PyMem_Calloc(NPATHS, sizeof(uint64_t));
    if (paths == NULL) return PyErr_NoMemory();
    enumerate_coups(values, total, draws, NULL, paths);
    PyObject *result = list_u64(paths, NPATHS);
    PyMem_Free(paths);
    return result;
}

/* pattern_table(categories) -> (table, representatives)
 *
 * categories[r] is a code 0-3 for each rank; the caller gives two ranks the
 * same code only when renaming one into the other changes nothing a pair
 * wager can see (same rank, same point value, face card or not).  A pattern
 * is the ordered four ranks up to such renaming: which positions share a
 * rank, and each rank's code.  table[((r1*13+r2)*13+r3)*13+r4] is the
 * pattern id; representatives[id] is the first rank tuple of that pattern.
 */
static PyObject *py_pattern_table(PyObject *self, PyObject *args) {
    const char *cats;
    Py_ssize_t ncats;
    if (!PyArg_ParseTuple(args, "y#:pattern_table", &cats, &ncats)) return NULL;
    if (ncats != 13) {
        PyErr_SetString(PyExc_ValueError, "categories must have 13 entries");
        return NULL;
    }
    PyObject *table = PyBytes_FromStringAndSize(NULL, NTUPLES * sizeof(uint16_t));
    PyObject *reps = PyList_New(0);
    if (table == NULL || reps == NULL) {
        Py_XDECREF(table);
        Py_XDECREF(reps);
        return NULL;
    }
    uint16_t *t = (uint16_t *)PyBytes_AS_STRING(table);
    for (int r = 0; r < 13; r++) {
        if ((uint8_t)cats[r] > 3) {
            Py_DECREF(table);
            Py_DECREF(reps);
            PyErr_SetString(PyExc_ValueError, "categories must be 0 to 3");
            return NULL;
        }
    }
    /* key: for each position, category (2 bits) and ordinal within the category (2 bits) */
    static int32_t ids[1 << 16];
    for (int k = 0; k < (1 << 16); k++) ids[k] = -1;
    int nkeys = 0;
    for (int i = 0; i < NTUPLES; i++) {
        int rk[4] = {i / 2197, (i / 169) % 13, (i / 13) % 13, i % 13};
        int seen_rank[4], seen_ord[4], nseen = 0, per_cat[4] = {0};
        uint32_t key = 0;
        for (int j = 0; j < 4; j++) {
            int ord = -1;
            for (int s = 0; s < nseen; s++)
                if (seen_rank[s] == rk[j]) ord = seen_ord[s];
            if (ord < 0) {
                ord = per_cat[(uint8_t)cats[rk[j]]]++;
                seen_rank[nseen] = rk[j];
                seen_ord[nseen++] = ord;
            }
            key = (key << 4) | ((uint32_t)(uint8_t)cats[rk[j]] << 2) | (uint32_t)ord;
        }
        int id = ids[key];
        if (id < 0) {
            id = ids[key] = nkeys++;
            PyObject *rep = Py_BuildValue("(iiii)", rk[0], rk[1], rk[2], rk[3]);
            if (rep == NULL || PyList_Append(reps, rep) < 0) {
                Py_XDECREF(rep);
                Py_DECREF(table);
                Py_DECREF(reps);
                return NULL;
            }
            Py_DECREF(rep);
        }
        t[i] = (uint16_t)id;
    }
    return Py_BuildValue("(NN)", table, reps);
}

static const uint16_t *read_table(PyObject *obj) {
    if (!PyBytes_Check(obj) || PyBytes_GET_SIZE(obj) != NTUPLES * (Py_ssize_t)sizeof(uint16_t)) {
        PyErr_SetString(PyExc_ValueError, "table must come from pattern_table()");
        return NULL;
    }
    return (const uint16_t *)PyBytes_AS_STRING(obj);
}

static PyObject *py_pattern_counts(PyObject *self, PyObject *args) {
    PyObject *counts, *table_obj;
    int npatterns, symmetric;
    int64_t ranks[13], values[10], total;
    if (!PyArg_ParseTuple(args, "OOip:pattern_counts", &counts, &table_obj, &npatterns, &symmetric))
        return NULL;
    if (read_counts(counts, ranks, values, &total) < 0) return NULL;
    const uint16_t *table = read_table(table_obj);
    if (table == NULL) return NULL;
    if (npatterns <= 0 || npatterns > 4096) {
        PyErr_SetString(PyExc_ValueError, "bad pattern count");
        return NULL;
    }
    uint64_t *out = PyMem_Calloc((size_t)npatterns, sizeof(uint64_t));
    if (out == NULL) return PyErr_NoMemory();
    if (enumerate_patterns(ranks, total, table, symmetric, out, npatterns) < 0) {
        PyMem_Free(out);
        return NULL;
    }
    PyObject *result = list_u64(out, npatterns);
    PyMem_Free(out);
    return result;
}

/*
 * evaluate(counts, draws, plan, table) -> (total, slot counts...)
 *
 * plan: int32 [nslots, nclass_pairs, npattern_pairs, npatterns, symmetric,
 *              class pairs (class, slot)..., pattern pairs (pattern, slot)...]
 * table: the pattern table, or None when the plan has no pattern pairs.
 */
static PyObject *py_evaluate(PyObject *self, PyObject *args) {
    PyObject *counts, *draws_obj, *plan_obj, *table_obj;
    int64_t ranks[13], values[10], total;
    if (!PyArg_ParseTuple(args, "OOSO:evaluate", &counts, &draws_obj, &plan_obj, &table_obj))
        return NULL;
    if (read_counts(counts, ranks, values, &total) < 0) return NULL;
    const uint8_t *draws = read_draws(draws_obj);
    if (draws == NULL) return NULL;
    Py_ssize_t plan_size = PyBytes_GET_SIZE(plan_obj) / (Py_ssize_t)sizeof(int32_t);
    const int32_t *plan = (const int32_t *)PyBytes_AS_STRING(plan_obj);
    if (plan_size < 5) goto bad_plan;
    int32_t nslots = plan[0], ncp = plan[1], npp = plan[2], npat = plan[3], sym = plan[4];
    if (nslots < 0 || nslots > 4096 || ncp < 0 || npp < 0 || npat < 0 || npat > 4096 ||
        plan_size != 5 + 2 * (Py_ssize_t)ncp + 2 * (Py_ssize_t)npp)
        goto bad_plan;
    const int32_t *cpairs = plan + 5, *ppairs = plan + 5 + 2 * ncp;
    uint64_t slots[4096 + 1];
    memset(slots, 0, (size_t)(nslots + 1) * sizeof(uint64_t));
    if (ncp > 0) {
        uint64_t classes[NCLASSES];
        memset(classes, 0, sizeof classes);
        enumerate_coups(values, total, draws, classes, NULL);
        for (int32_t i = 0; i < ncp; i++) {
            int32_t c = cpairs[2 * i], s = cpairs[2 * i + 1];
            if (c < 0 || c >= NCLASSES || s < 0 || s >= nslots) goto bad_plan;
            slots[s + 1] += classes[c];
        }
    }
    if (npp > 0) {
        const uint16_t *table = read_table(table_obj);
        if (table == NULL) return NULL;
        uint64_t pats[4096];
        memset(pats, 0, (size_t)npat * sizeof(uint64_t));
        if (enumerate_patterns(ranks, total, table, sym, pats, npat) < 0) return NULL;
        for (int32_t i = 0; i < npp; i++) {
            int32_t c = ppairs[2 * i], s = ppairs[2 * i + 1];
            if (c < 0 || c >= npat || s < 0 || s >= nslots) goto bad_plan;
            slots[s + 1] += pats[c];
        }
    }
    {
        uint64_t n6 = 1;
        for (int k = 0; k < 6; k++) n6 *= (uint64_t)(total - k);
        slots[0] = n6;
    }
    {
        PyObject *result = PyTuple_New(nslots + 1);
        if (result == NULL) return NULL;
        for (int32_t i = 0; i <= nslots; i++) {
            PyObject *item = PyLong_FromUnsignedLongLong(slots[i]);
            if (item == NULL) {
                Py_DECREF(result);
                return NULL;
            }
            PyTuple_SET_ITEM(result, i, item);
        }
        return result;
    }
bad_plan:
    PyErr_SetString(PyExc_ValueError, "malformed plan");
    return NULL;
}

static PyMethodDef methods[] = {
    {"class_counts", py_class_counts, METH_VARARGS,
     "class_counts(counts, draws) -> the 400 coup-class counts"},
    {"path_counts", py_path_counts, METH_VARARGS,
     "path_counts(counts, draws) -> the 12100 counts by two-card totals and third cards"},
    {"pattern_table", py_pattern_table, METH_VARARGS,
     "pattern_table(categories) -> (table, representatives)"},
    {"pattern_counts", py_pattern_counts, METH_VARARGS,
     "pattern_counts(counts, table, npatterns, symmetric) -> counts by pair pattern"},
    {"evaluate", py_evaluate, METH_VARARGS,
     "evaluate(counts, draws, plan, table) -> (total, slot counts...)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernel",
    "Exact counts of baccarat coups by shoe composition (see kernel.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModule_Create(&module); }

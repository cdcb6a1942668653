/*
 * punto.sim._kernel: the dealing kernel of punto.sim.kernel.simulate_shoes in C.
 *
 * Compiled ahead of time (setup.py), so a run needs no numba start-up.  It
 * knows no rule of the game: the Table of Play comes in as the outcome table
 * of punto.sim.tables, the pair patterns as the exact analysis's table.  It
 * deals the very shoes the numba kernel deals from the same random state --
 * xoshiro256++, 16 bits a draw, Lemire's bounded numbers with the same
 * rejections, the same partial Fisher-Yates, burn and cut card -- and leaves
 * the same counts and the same final state (tests/test_sim_compiled.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define NCLASSES 400
#define NOUTCOMES 10000 /* (p, b, fifth, sixth) */
#define NTUPLES 28561   /* 13^4 ranks of the first four cards */
#define NRANKS 13
/* Positions of the next shoe shuffled while a coup is dealt: about the
 * positions shuffled per coup dealt (408 / 82 with eight decks). */
#define STEPS_A_COUP 5
/* Inlined whatever the compiler thinks: the random state and the shuffle's
 * position live in registers only inside one function (a store of a card, a
 * byte, may alias anything the compiler cannot see is local). */
#define INLINE static inline __attribute__((always_inline))

typedef struct {
    uint64_t s0, s1, s2, s3;
} xoshiro;

INLINE uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* One xoshiro256++ output (Blackman and Vigna). */
INLINE uint64_t next(xoshiro *r) {
    uint64_t result = rotl(r->s0 + r->s3, 23) + r->s0;
    uint64_t t = r->s1 << 17;
    r->s2 ^= r->s0;
    r->s3 ^= r->s1;
    r->s1 ^= r->s2;
    r->s0 ^= r->s3;
    r->s2 ^= t;
    r->s3 = rotl(r->s3, 45);
    return result;
}

/* Position i of a shuffle: 16 bits of an output a draw (an output every
 * fourth position, the first at position 0), by Lemire's nearly divisionless
 * method (the rare low products rejected, with an output each). */
INLINE void step(uint8_t *deck, Py_ssize_t n, Py_ssize_t i, uint64_t *buf, xoshiro *r) {
    uint64_t bound = (uint64_t)(n - i);
    if ((i & 3) == 0) *buf = next(r);
    uint64_t prod = (*buf & 0xFFFF) * bound;
    *buf >>= 16;
    uint64_t low = prod & 0xFFFF;
    if (low < bound) {
        uint64_t threshold = (65536 - bound) % bound;
        while (low < threshold) {
            prod = (next(r) >> 48) * bound;
            low = prod & 0xFFFF;
        }
    }
    Py_ssize_t j = i + (Py_ssize_t)(prod >> 16);
    uint8_t card = deck[j];
    deck[j] = deck[i];
    deck[i] = card;
}

/* Copy the template and shuffle its first m positions (a partial Fisher-Yates:
 * position i gets a uniform card of the n - i left), as the numba _shuffle. */
INLINE void shuffle(uint8_t *deck, const uint8_t *tmpl, Py_ssize_t n, Py_ssize_t m,
                    xoshiro *r) {
    memcpy(deck, tmpl, (size_t)n);
    uint64_t buf = 0;
    for (Py_ssize_t i = 0; i < m; i++) step(deck, n, i, &buf, r);
}

/* Count the coup whose cards start at c; the cards it takes beyond four. */
INLINE unsigned coup(const uint8_t *c, const uint16_t *outcome, const uint16_t *pattern,
                     int pairs, int32_t *row) {
    unsigned p = (unsigned)(c[0] >> 4) + (c[2] >> 4);
    unsigned b = (unsigned)(c[1] >> 4) + (c[3] >> 4);
    p = p >= 10 ? p - 10 : p;
    b = b >= 10 ? b - 10 : b;
    unsigned code = outcome[p * 1000 + b * 100 + (c[4] >> 4) * 10 + (c[5] >> 4)];
    row[code & 0x1FF]++;
    if (pairs) {
        unsigned key = (((c[0] & 15) * 13 + (c[1] & 15)) * 13 + (c[2] & 15)) * 13;
        row[NCLASSES + pattern[key + (c[3] & 15)]]++;
    }
    return code >> 9;
}

/* Where the first coup starts: after the burn, if any (the first card shown,
 * as many as its point value burned, ten for a zero). */
INLINE Py_ssize_t first_coup(const uint8_t *deck, int burn) {
    if (!burn) return 0;
    int shown = deck[0] >> 4;
    return 1 + (shown == 0 ? 10 : shown);
}

/* A contiguous buffer of items of the given size (and, if ndim > 0, that many
 * dimensions), or -1 with an exception. */
static int get_buffer(PyObject *obj, Py_buffer *view, int writable, Py_ssize_t itemsize,
                      int ndim, const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return -1;
    if (view->itemsize != itemsize || (ndim > 0 && view->ndim != ndim)) {
        PyErr_Format(PyExc_ValueError, "%s must be a contiguous array of %zd-byte items%s", name,
                     itemsize, ndim == 2 ? " with two dimensions" : "");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *simulate_shoes(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *o_state, *o_tmpl, *o_outcome, *o_values, *o_pattern, *o_counts;
    Py_ssize_t nshoes, cut, batch;
    int burn, pairs;
    if (!PyArg_ParseTuple(args, "OOnnpnOOOpO:simulate_shoes", &o_state, &o_tmpl, &nshoes, &cut,
                          &burn, &batch, &o_outcome, &o_values, &o_pattern, &pairs, &o_counts))
        return NULL;
    Py_buffer b_state, b_tmpl, b_outcome, b_values, b_pattern, b_counts;
    PyObject *result = NULL;
    if (get_buffer(o_state, &b_state, 1, 8, 0, "state") < 0) return NULL;
    if (get_buffer(o_tmpl, &b_tmpl, 0, 1, 0, "template") < 0) goto free_state;
    if (get_buffer(o_outcome, &b_outcome, 0, 2, 0, "outcome") < 0) goto free_tmpl;
    if (get_buffer(o_values, &b_values, 0, 1, 0, "values") < 0) goto free_outcome;
    if (get_buffer(o_pattern, &b_pattern, 0, 2, 0, "pattern") < 0) goto free_values;
    if (get_buffer(o_counts, &b_counts, 1, 4, 2, "counts") < 0) goto free_pattern;

    const Py_ssize_t n = b_tmpl.len;
    const Py_ssize_t rows = b_counts.shape[0], width = b_counts.shape[1];
    const uint8_t *tmpl = b_tmpl.buf, *values = b_values.buf;
    const uint16_t *outcome = b_outcome.buf, *pattern = b_pattern.buf;
    int32_t *counts = b_counts.buf;
    uint64_t *state = b_state.buf;

    /* Everything the loop reads or writes is checked here, once: it indexes
     * without checks. */
    if (b_state.len < 4 * 8 || b_outcome.len != NOUTCOMES * 2 || b_values.len != NRANKS ||
        (pairs && b_pattern.len != NTUPLES * 2)) {
        PyErr_SetString(PyExc_ValueError,
                        "state needs 4 words, outcome 10000 codes, values 13 ranks and pattern "
                        "13^4 ids");
        goto done;
    }
    if (nshoes < 0 || batch < 1 || cut < 0 || cut + 6 > n) {
        PyErr_SetString(PyExc_ValueError,
                        "need nshoes >= 0, batch_shoes >= 1 and 0 <= cut <= cards - 6");
        goto done;
    }
    if (nshoes > 0 && (rows < (nshoes - 1) / batch + 1 || width < NCLASSES)) {
        PyErr_SetString(PyExc_ValueError, "counts needs a row per batch and 400 columns or more");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (tmpl[i] >= NRANKS) {
            PyErr_SetString(PyExc_ValueError, "the template holds ranks 0 to 12");
            goto done;
        }
    for (int i = 0; i < NRANKS; i++)
        if (values[i] > 9) {
            PyErr_SetString(PyExc_ValueError, "point values are 0 to 9");
            goto done;
        }
    for (int i = 0; i < NOUTCOMES; i++)
        if ((outcome[i] & 0x1FF) >= NCLASSES || (outcome[i] >> 9) > 2) {
            PyErr_SetString(PyExc_ValueError, "an outcome code is a class below 400 and 0-2 cards");
            goto done;
        }
    if (pairs)
        for (int i = 0; i < NTUPLES; i++)
            if (NCLASSES + (Py_ssize_t)pattern[i] >= width) {
                PyErr_SetString(PyExc_ValueError, "a pattern id has no column in counts");
                goto done;
            }

    uint8_t *deck = PyMem_Malloc(3 * (size_t)n);
    if (deck == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const Py_ssize_t m = n < cut + 6 ? n : cut + 6;
    long long coups = 0;
    Py_BEGIN_ALLOW_THREADS
    xoshiro r = {state[0], state[1], state[2], state[3]};
    /* Each card carries its point value above its rank (value << 4 | rank):
     * the shuffle moves the same positions whatever the bytes, and a coup
     * reads values and ranks without a look-up. */
    uint8_t *enc = deck + 2 * n;
    for (Py_ssize_t i = 0; i < n; i++) enc[i] = (uint8_t)(values[tmpl[i]] << 4 | tmpl[i]);
    /* Shoe k + 1 is shuffled while shoe k is dealt, a few positions a coup:
     * dealing is a chain of dependent loads (where a coup starts depends on
     * the cards the one before took), the shuffle independent arithmetic, so
     * the processor does both at once.  The random numbers are drawn in the
     * same order: shoe by shoe, position by position. */
    uint8_t *cur = deck, *nxt = deck + n;
    if (nshoes > 0) shuffle(cur, enc, n, m, &r);
    for (Py_ssize_t shoe = 0; shoe < nshoes; shoe++) {
        Py_ssize_t i = m; /* the next shoe's position to shuffle: none after the last */
        uint64_t buf = 0;
        if (shoe + 1 < nshoes) {
            memcpy(nxt, enc, (size_t)n);
            i = 0;
        }
        int32_t *row = counts + (shoe / batch) * width;
        Py_ssize_t pos = first_coup(cur, burn);
        while (pos <= cut) {
            pos += 4 + coup(cur + pos, outcome, pattern, pairs, row);
            coups++;
            if (i + STEPS_A_COUP <= m) {
                for (int k = 0; k < STEPS_A_COUP; k++, i++) step(nxt, n, i, &buf, &r);
            } else {
                for (; i < m; i++) step(nxt, n, i, &buf, &r);
            }
        }
        for (; i < m; i++) step(nxt, n, i, &buf, &r);
        uint8_t *t = cur;
        cur = nxt;
        nxt = t;
    }
    state[0] = r.s0;
    state[1] = r.s1;
    state[2] = r.s2;
    state[3] = r.s3;
    Py_END_ALLOW_THREADS
    PyMem_Free(deck);
    result = PyLong_FromLongLong(coups);

done:
    PyBuffer_Release(&b_counts);
free_pattern:
    PyBuffer_Release(&b_pattern);
free_values:
    PyBuffer_Release(&b_values);
free_outcome:
    PyBuffer_Release(&b_outcome);
free_tmpl:
    PyBuffer_Release(&b_tmpl);
free_state:
    PyBuffer_Release(&b_state);
    return result;
}

static PyMethodDef methods[] = {
    {"simulate_shoes", simulate_shoes, METH_VARARGS,
     "simulate_shoes(state, template, nshoes, cut, burn, batch_shoes, outcome, values, pattern, "
     "pairs, counts) -> coups: as punto.sim.kernel.simulate_shoes"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "punto.sim._kernel",
    "The dealing kernel of punto.sim.kernel.simulate_shoes in C.", -1, methods,
};

PyMODINIT_FUNC PyInit__kernel(void) { return PyModule_Create(&module); }

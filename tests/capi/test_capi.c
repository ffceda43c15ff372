/* The C ABI of classad (src/capi), exercised from C and its results checked:
 * ads parsed in both syntaxes, expressions evaluated alone, in an ad and in a
 * match, a pool compiled from text, from a file and from a list, one job
 * matched against it, all pairs and match counts held against an oracle
 * computed here in plain C, the negotiation cycle, a living pool changed and
 * negotiated cycle after cycle, and the error paths (syntax
 * errors with line and column, text that is not UTF-8, NULL pointers, wrong
 * types, unknown files). Every handle is freed, so a leak checker run over it
 * (src/capi/tests/c_program.rs runs it under valgrind) finds nothing.
 *
 * Usage: test_capi DIR (a writable directory for the pool file). Exit status 0
 * when every check holds; otherwise the failed check is printed. */
#include "classad.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    checks++;                                                                  \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

/* A call that must succeed; on failure, prints its status and message. */
#define OK(call)                                                               \
  do {                                                                         \
    checks++;                                                                  \
    classad_status st_ = (call);                                               \
    if (st_ != CLASSAD_OK) {                                                   \
      fprintf(stderr, "%s:%d: %s returned %d: %s\n", __FILE__, __LINE__,       \
              #call, (int)st_, classad_last_error(NULL));                      \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

/* The thread's last error message contains `needle`. */
static int last_error_has(const char *needle) {
  size_t len = 0;
  const char *msg = classad_last_error(&len);
  return msg != NULL && strlen(msg) == len && strstr(msg, needle) != NULL;
}

/* ---- The pool: slots and jobs generated here, matched here in plain C. ---- */

#define N_SLOTS 24
#define N_JOBS 6

static int slot_cpus(int i) { return 1 + i % 4; }
static int slot_memory(int i) { return 1024 * (1 + i % 3); }
static int slot_x86(int i) { return i % 2 == 0; }
static int job_cpus(int k) { return 1 + k % 4; }
static int job_memory(int k) { return 512 * (1 + k); }

/* The oracle: whether job k and slot i match both ways. */
static int matches(int k, int i) {
  return slot_x86(i) && slot_cpus(i) >= job_cpus(k) &&
         job_memory(k) <= slot_memory(i);
}

/* The slots in new syntax, one ad after another. */
static char *slots_new_syntax(void) {
  size_t cap = 256 * N_SLOTS, len = 0;
  char *buf = malloc(cap);
  CHECK(buf != NULL);
  for (int i = 0; i < N_SLOTS; i++) {
    len += (size_t)snprintf(
        buf + len, cap - len,
        "[ Name = \"slot%d@host\"; SlotID = %d; Cpus = %d; Memory = %d; "
        "Arch = \"%s\"; Requirements = TARGET.RequestMemory <= MY.Memory ]\n",
        i, i + 1, slot_cpus(i), slot_memory(i), slot_x86(i) ? "X86_64" : "ARM");
    CHECK(len < cap);
  }
  return buf;
}

/* The same slots in old syntax (condor_status -l), for the pool file. */
static char *slots_old_syntax(void) {
  size_t cap = 256 * N_SLOTS, len = 0;
  char *buf = malloc(cap);
  CHECK(buf != NULL);
  for (int i = 0; i < N_SLOTS; i++) {
    len += (size_t)snprintf(
        buf + len, cap - len,
        "Name = \"slot%d@host\"\nSlotID = %d\nCpus = %d\nMemory = %d\n"
        "Arch = \"%s\"\nRequirements = TARGET.RequestMemory <= MY.Memory\n\n",
        i, i + 1, slot_cpus(i), slot_memory(i), slot_x86(i) ? "X86_64" : "ARM");
    CHECK(len < cap);
  }
  return buf;
}

/* The jobs in old syntax (condor_q -l), blank lines between them. */
static char *jobs_old_syntax(void) {
  size_t cap = 256 * N_JOBS, len = 0;
  char *buf = malloc(cap);
  CHECK(buf != NULL);
  for (int k = 0; k < N_JOBS; k++) {
    len += (size_t)snprintf(
        buf + len, cap - len,
        "ClusterId = 1\nProcId = %d\nOwner = \"alice\"\nJobStatus = 1\n"
        "RequestCpus = %d\nRequestMemory = %d\n"
        "Requirements = TARGET.Cpus >= MY.RequestCpus && TARGET.Arch == "
        "\"X86_64\"\nRank = TARGET.Cpus\n\n",
        k, job_cpus(k), job_memory(k));
    CHECK(len < cap);
  }
  return buf;
}

/* ---- Values ---- */

/* Evaluates `expr` in a match of `my` and `target` (either may be NULL: then
 * in `my` alone, or alone altogether). */
static classad_value *eval_in(const classad_ad *my, const classad_ad *target,
                              const char *expr) {
  classad_value *v = NULL;
  if (my == NULL)
    OK(classad_eval(expr, strlen(expr), &v));
  else if (target == NULL)
    OK(classad_ad_eval(my, expr, strlen(expr), &v));
  else
    OK(classad_match_eval(my, target, expr, strlen(expr), &v));
  CHECK(v != NULL);
  return v;
}

static int64_t eval_int(const classad_ad *my, const classad_ad *target,
                        const char *expr) {
  classad_value *v = eval_in(my, target, expr);
  classad_value_type t;
  OK(classad_value_get_type(v, &t));
  CHECK(t == CLASSAD_VALUE_INT);
  int64_t i = 0;
  OK(classad_value_int(v, &i));
  classad_value_free(v);
  return i;
}

/* `expr` evaluated and printed is `want`, and its type is `type`. */
static void check_printed(const classad_ad *my, const classad_ad *target,
                          const char *expr, classad_value_type type,
                          const char *want) {
  classad_value *v = eval_in(my, target, expr);
  classad_value_type t;
  OK(classad_value_get_type(v, &t));
  classad_string *s = NULL;
  OK(classad_value_print(v, &s));
  if (t != type || strcmp(classad_string_data(s), want) != 0 ||
      classad_string_len(s) != strlen(want)) {
    fprintf(stderr, "%s: type %d, printed %s; wanted type %d, %s\n", expr,
            (int)t, classad_string_data(s), (int)type, want);
    exit(1);
  }
  classad_string_free(s);
  classad_value_free(v);
}

static void test_values(void) {
  const char *slot_text = "[ Name = \"slot1@host\"; Cpus = 4; Memory = 2048; "
                          "Arch = \"X86_64\"; Requirements = "
                          "TARGET.RequestMemory <= MY.Memory ]";
  const char *job_text = "RequestCpus = 2\nRequestMemory = 1024\nOwner = "
                         "\"alice\"\nRequirements = TARGET.Cpus >= "
                         "MY.RequestCpus\nRank = TARGET.Cpus\n";
  classad_ad *slot = NULL, *job = NULL;
  OK(classad_ad_parse(slot_text, strlen(slot_text), CLASSAD_FORMAT_NEW, &slot));
  OK(classad_ad_parse(job_text, strlen(job_text), CLASSAD_FORMAT_OLD, &job));
  size_t n = 0;
  OK(classad_ad_size(slot, &n));
  CHECK(n == 5);
  OK(classad_ad_size(job, &n));
  CHECK(n == 5);

  /* Detected syntax gives the same ad. */
  classad_ad *auto_job = NULL;
  OK(classad_ad_parse(job_text, strlen(job_text), CLASSAD_FORMAT_AUTO,
                      &auto_job));
  classad_string *a = NULL, *b = NULL;
  OK(classad_ad_print(job, CLASSAD_STYLE_NEW, &a));
  OK(classad_ad_print(auto_job, CLASSAD_STYLE_NEW, &b));
  CHECK(strcmp(classad_string_data(a), classad_string_data(b)) == 0);
  CHECK(strstr(classad_string_data(a), "RequestCpus = 2") != NULL);
  classad_string_free(a);
  classad_string_free(b);
  classad_ad_free(auto_job);

  /* An attribute's expression, printed. */
  classad_string *e = NULL;
  OK(classad_ad_get_expr(slot, "requirements", 12, &e));
  CHECK(strcmp(classad_string_data(e), "TARGET.RequestMemory <= MY.Memory") ==
        0);
  classad_string_free(e);
  e = (classad_string *)1;
  CHECK(classad_ad_get_expr(slot, "Nope", 4, &e) == CLASSAD_ERR_NOT_FOUND);
  CHECK(e == NULL);

  /* Alone, in an ad, in a match. */
  CHECK(eval_int(NULL, NULL, "1 + 2 * 3") == 7);
  CHECK(eval_int(slot, NULL, "Cpus * 2") == 8);
  CHECK(eval_int(job, slot, "MY.RequestCpus + TARGET.Cpus") == 6);
  CHECK(eval_int(job, slot, "Rank") == 4);
  /* An unscoped name missing from MY is looked up in TARGET. */
  CHECK(eval_int(job, slot, "Memory - RequestMemory") == 1024);

  classad_value *v = eval_in(job, slot, "Requirements");
  bool bv = false;
  OK(classad_value_bool(v, &bv));
  CHECK(bv);
  int64_t iv = 0;
  CHECK(classad_value_int(v, &iv) == CLASSAD_ERR_TYPE);
  CHECK(last_error_has("not an integer"));
  classad_value_free(v);

  v = eval_in(slot, job, "TARGET.Owner");
  const char *sp = NULL;
  size_t sl = 0;
  OK(classad_value_string(v, &sp, &sl));
  CHECK(sl == 5 && memcmp(sp, "alice", 5) == 0);
  classad_value_free(v);

  v = eval_in(slot, NULL, "Cpus / 8.0");
  double dv = 0;
  OK(classad_value_real(v, &dv));
  CHECK(dv == 0.5);
  classad_value_free(v);

  check_printed(slot, NULL, "Cpus / 8.0", CLASSAD_VALUE_REAL,
                "5.000000000000000E-01");
  check_printed(slot, NULL, "NoSuchAttribute", CLASSAD_VALUE_UNDEFINED,
                "undefined");
  check_printed(NULL, NULL, "1 / 0", CLASSAD_VALUE_ERROR, "error");
  /* A list keeps its elements' expressions, as HTCondor's does. */
  check_printed(job, slot, "{ MY.RequestCpus, TARGET.Cpus, \"x\" }",
                CLASSAD_VALUE_LIST, "{ MY.RequestCpus,TARGET.Cpus,\"x\" }");
  check_printed(job, slot, "split(strcat(Owner, \" \", TARGET.Arch))",
                CLASSAD_VALUE_LIST, "{ \"alice\",\"X86_64\" }");
  check_printed(job, slot, "strcat(TARGET.Arch, \"-\", Owner)",
                CLASSAD_VALUE_STRING, "\"X86_64-alice\"");
  check_printed(NULL, NULL, "[ a = 1; b = a + 1 ].b", CLASSAD_VALUE_INT, "2");

  /* The symmetric match. */
  bool m = false;
  OK(classad_symmetric_match(job, slot, &m));
  CHECK(m);
  const char *small_text = "[ Cpus = 1; Memory = 512; Requirements = true ]";
  classad_ad *small = NULL;
  OK(classad_ad_parse(small_text, strlen(small_text), CLASSAD_FORMAT_AUTO,
                      &small));
  OK(classad_symmetric_match(job, small, &m));
  CHECK(!m);
  classad_ad_free(small);

  classad_ad_free(slot);
  classad_ad_free(job);
}

/* ---- Errors ---- */

static void test_errors(void) {
  classad_ad *ad = (classad_ad *)1;

  /* A syntax error: a status, and a message with the line and column. */
  const char *bad = "[\n  a = 1;\n  b = ;\n]";
  CHECK(classad_ad_parse(bad, strlen(bad), CLASSAD_FORMAT_NEW, &ad) ==
        CLASSAD_ERR_PARSE);
  CHECK(ad == NULL);
  CHECK(last_error_has("<string>:3:"));
  const char *bad_old = "A = 1\nB = (2 +\n";
  CHECK(classad_ad_parse(bad_old, strlen(bad_old), CLASSAD_FORMAT_OLD, &ad) ==
        CLASSAD_ERR_PARSE);
  CHECK(last_error_has("<string>:2:"));
  classad_value *v = (classad_value *)1;
  CHECK(classad_eval("1 + * 2", 7, &v) == CLASSAD_ERR_PARSE);
  CHECK(v == NULL);
  CHECK(last_error_has("line 1, column"));

  /* Text that is not UTF-8 is refused, with the offset of the bad byte. */
  const char *latin1 = "[ Owner = \"Jos\xe9\" ]";
  CHECK(classad_ad_parse(latin1, strlen(latin1), CLASSAD_FORMAT_AUTO, &ad) ==
        CLASSAD_ERR_UTF8);
  CHECK(ad == NULL);
  CHECK(last_error_has("offset 14"));
  CHECK(classad_eval("\"\xff\"", 3, &v) == CLASSAD_ERR_UTF8);

  /* Lengths are honoured: nothing is read past them, no NUL is needed. */
  const char *longer = "[ a = 1 ]garbage that is not an ad";
  OK(classad_ad_parse(longer, 9, CLASSAD_FORMAT_NEW, &ad));
  classad_ad_free(ad);

  /* NULL pointers. */
  CHECK(classad_ad_parse(NULL, 0, CLASSAD_FORMAT_AUTO, &ad) ==
        CLASSAD_ERR_NULL);
  CHECK(last_error_has("text is NULL"));
  CHECK(classad_ad_parse("[]", 2, CLASSAD_FORMAT_AUTO, NULL) ==
        CLASSAD_ERR_NULL);
  CHECK(classad_ad_eval(NULL, "1", 1, &v) == CLASSAD_ERR_NULL);
  CHECK(classad_value_int(NULL, NULL) == CLASSAD_ERR_NULL);
  bool m;
  CHECK(classad_symmetric_match(NULL, NULL, &m) == CLASSAD_ERR_NULL);
  CHECK(classad_string_data(NULL) == NULL);
  CHECK(classad_string_len(NULL) == 0);
  classad_ad_free(NULL);
  classad_value_free(NULL);
  classad_string_free(NULL);
  classad_pool_free(NULL);
  classad_ad_list_free(NULL);
  classad_u32_array_free(NULL);
  classad_pairs_free(NULL);

  /* Out of range. */
  CHECK(classad_ad_parse("[]", 2, 99, &ad) == CLASSAD_ERR_ARGUMENT);
  CHECK(last_error_has("unknown format 99"));
  CHECK(classad_ad_parse("[a=1][b=2]", 10, CLASSAD_FORMAT_NEW, &ad) ==
        CLASSAD_ERR_PARSE);
  CHECK(last_error_has("expected one ad, found 2"));

  /* The message copied into a buffer too small for it. */
  char small[8];
  size_t whole = classad_last_error_copy(small, sizeof small);
  CHECK(whole > sizeof small);
  CHECK(strlen(small) == sizeof small - 1);
  CHECK(classad_last_error_copy(NULL, 0) == whole);

  /* Files. */
  classad_ad_list *list = (classad_ad_list *)1;
  const char *nowhere = "/nonexistent/classad/pool.ads";
  CHECK(classad_ad_list_read_file(nowhere, strlen(nowhere), &list) ==
        CLASSAD_ERR_IO);
  CHECK(list == NULL);
  CHECK(last_error_has(nowhere));
  classad_pool *pool = (classad_pool *)1;
  CHECK(classad_pool_from_file(nowhere, strlen(nowhere), NULL, 0, &pool) ==
        CLASSAD_ERR_IO);
  CHECK(pool == NULL);
  const char *bad_config = "NEGOTIATOR_PRE_JOB_RANK = (1 +";
  CHECK(classad_pool_from_text("[]", 2, bad_config, strlen(bad_config),
                               &pool) == CLASSAD_ERR_PARSE);
  CHECK(pool == NULL);
}

/* ---- Pools ---- */

/* The pairs of `p` are exactly the oracle's, in job then slot order. */
static void check_pairs(const classad_pairs *p) {
  size_t n = classad_pairs_count(p), at = 0;
  const uint32_t *jobs = classad_pairs_jobs(p), *slots = classad_pairs_slots(p);
  for (int k = 0; k < N_JOBS; k++)
    for (int i = 0; i < N_SLOTS; i++)
      if (matches(k, i)) {
        CHECK(at < n);
        CHECK(jobs[at] == (uint32_t)k && slots[at] == (uint32_t)i);
        at++;
      }
  CHECK(at == n);
}

/* The counts of `c` are the oracle's. */
static void check_counts(const classad_u32_array *c) {
  CHECK(classad_u32_array_len(c) == N_JOBS);
  const uint32_t *counts = classad_u32_array_data(c);
  for (int k = 0; k < N_JOBS; k++) {
    uint32_t want = 0;
    for (int i = 0; i < N_SLOTS; i++)
      want += (uint32_t)matches(k, i);
    CHECK(counts[k] == want);
  }
}

static void check_pool(const classad_pool *pool, const classad_ad_list *jobs) {
  size_t n = 0;
  OK(classad_pool_size(pool, &n));
  CHECK(n == N_SLOTS);
  classad_pairs *pairs = NULL;
  OK(classad_pool_all_pairs(pool, jobs, &pairs));
  check_pairs(pairs);
  classad_pairs_free(pairs);
  classad_u32_array *counts = NULL;
  OK(classad_pool_match_counts(pool, jobs, &counts));
  check_counts(counts);
  classad_u32_array_free(counts);
}

static void test_pools(const char *dir) {
  char *slots_text = slots_new_syntax();
  char *slots_old = slots_old_syntax();
  char *jobs_text = jobs_old_syntax();

  classad_ad_list *jobs = NULL;
  OK(classad_ad_list_parse(jobs_text, strlen(jobs_text), CLASSAD_FORMAT_OLD,
                           &jobs));
  size_t n = 0;
  OK(classad_ad_list_len(jobs, &n));
  CHECK(n == N_JOBS);

  /* From text, with HTCondor's default negotiator configuration. */
  classad_pool *pool = NULL;
  OK(classad_pool_from_text(slots_text, strlen(slots_text), NULL, 0, &pool));
  check_pool(pool, jobs);

  /* The same pool on two threads of our choosing, then the default again. */
  OK(classad_set_threads(2));
  check_pool(pool, jobs);
  OK(classad_set_threads(0));

  /* More threads than CLASSAD_MAX_THREADS: refused at once (SIZE_MAX used to
     run for minutes), the threads in use left as they were. */
  char bound[64];
  snprintf(bound, sizeof bound, "at most CLASSAD_MAX_THREADS (%d)",
           (int)CLASSAD_MAX_THREADS);
  CHECK(classad_set_threads((size_t)CLASSAD_MAX_THREADS + 1) ==
        CLASSAD_ERR_ARGUMENT);
  CHECK(last_error_has(bound));
  CHECK(classad_set_threads(SIZE_MAX) == CLASSAD_ERR_ARGUMENT);
  CHECK(last_error_has(bound));
  check_pool(pool, jobs);

  /* One job against the pool: the matching slots, as a set the oracle's. */
  for (int k = 0; k < N_JOBS; k++) {
    classad_ad *job = NULL;
    OK(classad_ad_list_get(jobs, (size_t)k, &job));
    classad_u32_array *cands = NULL;
    OK(classad_pool_match(pool, job, &cands));
    size_t len = classad_u32_array_len(cands);
    const uint32_t *idx = classad_u32_array_data(cands);
    int seen[N_SLOTS] = {0};
    for (size_t c = 0; c < len; c++) {
      CHECK(idx[c] < N_SLOTS && !seen[idx[c]]);
      seen[idx[c]] = 1;
      CHECK(matches(k, (int)idx[c]));
    }
    for (int i = 0; i < N_SLOTS; i++)
      CHECK(seen[i] == matches(k, i));
    /* The batch matcher agrees with the pair-by-pair symmetric match. */
    classad_ad_list *slot_list = NULL;
    OK(classad_ad_list_parse(slots_text, strlen(slots_text),
                             CLASSAD_FORMAT_NEW, &slot_list));
    for (int i = 0; i < N_SLOTS; i++) {
      classad_ad *slot = NULL;
      OK(classad_ad_list_get(slot_list, (size_t)i, &slot));
      bool m = false;
      OK(classad_symmetric_match(job, slot, &m));
      CHECK(m == (bool)seen[i]);
      classad_ad_free(slot);
    }
    classad_ad_list_free(slot_list);
    classad_u32_array_free(cands);
    classad_ad_free(job);
  }
  classad_pool_free(pool);

  /* Without the negotiator's ranks, candidates come best first by the job's
   * Rank (TARGET.Cpus), ties in slot order. */
  const char *config = "NEGOTIATOR_PRE_JOB_RANK = 0\n"
                       "NEGOTIATOR_POST_JOB_RANK = 0\n";
  OK(classad_pool_from_text(slots_text, strlen(slots_text), config,
                            strlen(config), &pool));
  classad_ad *job0 = NULL;
  OK(classad_ad_list_get(jobs, 0, &job0));
  classad_u32_array *cands = NULL;
  OK(classad_pool_match(pool, job0, &cands));
  size_t len = classad_u32_array_len(cands);
  const uint32_t *idx = classad_u32_array_data(cands);
  size_t want_len = 0;
  for (int i = 0; i < N_SLOTS; i++)
    want_len += (size_t)matches(0, i);
  CHECK(len == want_len && len > 1);
  for (size_t c = 1; c < len; c++) {
    int before = slot_cpus((int)idx[c - 1]), after = slot_cpus((int)idx[c]);
    CHECK(before > after || (before == after && idx[c - 1] < idx[c]));
  }
  classad_u32_array_free(cands);
  classad_ad_free(job0);
  classad_pool_free(pool);

  /* From a file in old syntax. */
  char path[4096];
  int pl = snprintf(path, sizeof path, "%s/pool.ads", dir);
  CHECK(pl > 0 && (size_t)pl < sizeof path);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  CHECK(fputs(slots_old, f) >= 0);
  CHECK(fclose(f) == 0);
  OK(classad_pool_from_file(path, (size_t)pl, NULL, 0, &pool));
  check_pool(pool, jobs);
  classad_pool_free(pool);

  /* From a list built ad by ad. */
  classad_ad_list *file_slots = NULL, *built = NULL;
  OK(classad_ad_list_read_file(path, (size_t)pl, &file_slots));
  OK(classad_ad_list_new(&built));
  for (size_t i = 0; i < N_SLOTS; i++) {
    classad_ad *slot = NULL;
    OK(classad_ad_list_get(file_slots, i, &slot));
    OK(classad_ad_list_push(built, slot));
    classad_ad_free(slot);
  }
  classad_ad *past = (classad_ad *)1;
  CHECK(classad_ad_list_get(file_slots, N_SLOTS, &past) ==
        CLASSAD_ERR_ARGUMENT);
  CHECK(past == NULL);
  OK(classad_pool_from_list(built, NULL, 0, &pool));
  check_pool(pool, jobs);
  classad_pool_free(pool);

  /* The negotiation cycle: every match one the oracle allows, each slot
   * given once, each job at most once. (Job 3 wants 4 cores, which no X86_64
   * slot has; jobs 4 and 5 want the 3 GB slots, and 5 only those with 2 cores
   * or more, which the others may have taken first.) */
  classad_pairs *made = NULL;
  OK(classad_negotiate(jobs, built, NULL, 0, NULL, 0, &made));
  size_t nm = classad_pairs_count(made);
  const uint32_t *mj = classad_pairs_jobs(made), *ms = classad_pairs_slots(made);
  int used[N_SLOTS] = {0}, served[N_JOBS] = {0};
  for (size_t c = 0; c < nm; c++) {
    CHECK(mj[c] < N_JOBS && ms[c] < N_SLOTS);
    CHECK(matches((int)mj[c], (int)ms[c]));
    CHECK(!used[ms[c]] && !served[mj[c]]);
    used[ms[c]] = served[mj[c]] = 1;
  }
  /* No job is left out while a slot it matches stays free. */
  for (int k = 0; k < N_JOBS; k++)
    for (int i = 0; i < N_SLOTS && !served[k]; i++)
      CHECK(!matches(k, i) || used[i]);
  CHECK(nm >= 3);
  classad_pairs_free(made);

  /* The configuration and the priorities are bounded as `classad negotiate`
   * bounds them: 40 knobs each referring twice to the next (a TiB expanded)
   * stop at once, and a real priority past 1e100 is refused; each naming the
   * line. */
  static char laughs[2048];
  size_t at = 0;
  for (int i = 0; i < 40; i++)
    at += (size_t)snprintf(laughs + at, sizeof laughs - at,
                           "A%d = $(A%d)$(A%d)\n", i, i + 1, i + 1);
  at += (size_t)snprintf(laughs + at, sizeof laughs - at,
                         "A40 = x\nNEGOTIATOR_PRE_JOB_RANK = $(A0)\n");
  made = (classad_pairs *)1;
  CHECK(classad_negotiate(jobs, built, laughs, at, NULL, 0, &made) ==
        CLASSAD_ERR_PARSE);
  CHECK(made == NULL);
  CHECK(last_error_has("<config>:42: NEGOTIATOR_PRE_JOB_RANK: its $(...)"));
  classad_pool *bounded = (classad_pool *)1;
  CHECK(classad_pool_from_text("[]", 2, laughs, at, &bounded) ==
        CLASSAD_ERR_PARSE);
  CHECK(bounded == NULL);
  const char *huge = "a 1e200 1e200\n";
  CHECK(classad_negotiate(jobs, built, NULL, 0, huge, strlen(huge), &made) ==
        CLASSAD_ERR_PARSE);
  CHECK(last_error_has("<priorities>:1:3: expected a real priority"));

  classad_ad_list_free(file_slots);
  classad_ad_list_free(built);
  classad_ad_list_free(jobs);
  free(slots_text);
  free(slots_old);
  free(jobs_text);
}

/* ---- A living pool ---- */

/* Three slots and four jobs; job 3 asks for more memory than any slot has. */
static const char living_slots[] =
    "Name = \"slot1@h\"\nCpus = 2\nMemory = 2048\nState = \"Unclaimed\"\n"
    "Requirements = TARGET.RequestMemory <= MY.Memory\n\n"
    "Name = \"slot2@h\"\nCpus = 1\nMemory = 1024\nState = \"Unclaimed\"\n"
    "Requirements = TARGET.RequestMemory <= MY.Memory\n\n"
    "Name = \"slot3@h\"\nCpus = 4\nMemory = 4096\nState = \"Unclaimed\"\n"
    "Requirements = TARGET.RequestMemory <= MY.Memory\n";
static const char living_jobs[] =
    "ClusterId = 1\nProcId = 0\nOwner = \"alice\"\nJobStatus = 1\n"
    "RequestMemory = 1024\nRequirements = TARGET.Memory >= MY.RequestMemory\n\n"
    "ClusterId = 1\nProcId = 1\nOwner = \"alice\"\nJobStatus = 1\n"
    "RequestMemory = 2048\nRequirements = TARGET.Memory >= MY.RequestMemory\n\n"
    "ClusterId = 2\nProcId = 0\nOwner = \"bob\"\nJobStatus = 1\n"
    "RequestMemory = 512\nRequirements = TARGET.Memory >= MY.RequestMemory\n\n"
    "ClusterId = 2\nProcId = 1\nOwner = \"bob\"\nJobStatus = 1\n"
    "RequestMemory = 8192\nRequirements = TARGET.Memory >= MY.RequestMemory\n";

/* The pairs of `p` name only the jobs and slots `job_ok` and `slot_ok` allow
 * (arrays indexed by id), each at most once. */
static void check_living_pairs(const classad_pairs *p, const int *job_ok,
                               size_t n_jobs, const int *slot_ok,
                               size_t n_slots) {
  size_t n = classad_pairs_count(p);
  const uint32_t *mj = classad_pairs_jobs(p), *ms = classad_pairs_slots(p);
  int job_seen[8] = {0}, slot_seen[8] = {0};
  CHECK(n_jobs <= 8 && n_slots <= 8);
  for (size_t c = 0; c < n; c++) {
    CHECK(mj[c] < n_jobs && job_ok[mj[c]] && !job_seen[mj[c]]);
    CHECK(ms[c] < n_slots && slot_ok[ms[c]] && !slot_seen[ms[c]]);
    job_seen[mj[c]] = slot_seen[ms[c]] = 1;
  }
}

/* Parses one ad in old syntax. */
static classad_ad *old_ad(const char *text) {
  classad_ad *ad = NULL;
  OK(classad_ad_parse(text, strlen(text), CLASSAD_FORMAT_OLD, &ad));
  return ad;
}

static void test_living(void) {
  classad_ad_list *slots = NULL, *jobs = NULL;
  OK(classad_ad_list_parse(living_slots, strlen(living_slots),
                           CLASSAD_FORMAT_OLD, &slots));
  OK(classad_ad_list_parse(living_jobs, strlen(living_jobs),
                           CLASSAD_FORMAT_OLD, &jobs));
  const int64_t start = 1700000000;
  classad_living_pool *pool = NULL;
  OK(classad_living_pool_new(slots, jobs, NULL, 0, NULL, 0, start, &pool));
  size_t nj = 0, ns = 0;
  OK(classad_living_pool_size(pool, &nj, &ns));
  CHECK(nj == 4 && ns == 3);

  /* The first cycle makes the matches classad_negotiate makes of the same ads,
   * in the same order: the ids are the lists' indices. */
  classad_pairs *fresh = NULL, *living = NULL;
  OK(classad_negotiate(jobs, slots, NULL, 0, NULL, 0, &fresh));
  classad_living_work work;
  memset(&work, 0xff, sizeof work);
  OK(classad_living_pool_cycle(pool, &living, &work));
  size_t n = classad_pairs_count(living);
  CHECK(n == classad_pairs_count(fresh) && n == 3);
  CHECK(memcmp(classad_pairs_jobs(living), classad_pairs_jobs(fresh),
               n * sizeof(uint32_t)) == 0);
  CHECK(memcmp(classad_pairs_slots(living), classad_pairs_slots(fresh),
               n * sizeof(uint32_t)) == 0);
  CHECK(work.rebuilt);
  CHECK(work.jobs_classified == 4);
  CHECK(work.cycle_s >= work.cluster_match_s && work.cluster_match_s >= 0);
  classad_pairs_free(fresh);
  classad_pairs_free(living);

  /* A few changes: a job added (id 4: none was removed yet), job 0 removed,
   * slot 1 given more memory, the clock moved a minute. The next cycle
   * classifies the one new job and matches the one changed slot again. */
  classad_ad *carol =
      old_ad("ClusterId = 3\nProcId = 0\nOwner = \"carol\"\nJobStatus = 1\n"
             "RequestMemory = 3000\n"
             "Requirements = TARGET.Memory >= MY.RequestMemory && "
             "TARGET.Cpus == 1\n");
  uint32_t id = 99;
  OK(classad_living_pool_add_job(pool, carol, &id));
  CHECK(id == 4);
  classad_ad_free(carol); /* The pool keeps its own reference. */
  OK(classad_living_pool_remove_job(pool, 0));
  classad_ad *bigger =
      old_ad("Name = \"slot2@h\"\nCpus = 1\nMemory = 3072\n"
             "State = \"Unclaimed\"\n"
             "Requirements = TARGET.RequestMemory <= MY.Memory\n");
  OK(classad_living_pool_update_slot(pool, 1, bigger));
  OK(classad_living_pool_advance_to(pool, start + 60));
  int64_t now = 0;
  OK(classad_living_pool_now(pool, &now));
  CHECK(now == start + 60);
  OK(classad_living_pool_size(pool, &nj, &ns));
  CHECK(nj == 4 && ns == 3);
  OK(classad_living_pool_cycle(pool, &living, &work));
  CHECK(!work.rebuilt);
  CHECK(work.jobs_classified == 1);
  CHECK(work.slots_matched == 1);
  const int jobs_now[] = {0, 1, 1, 1, 1}, slots_now[] = {1, 1, 1};
  check_living_pairs(living, jobs_now, 5, slots_now, 3);
  /* Carol (new, so first by priority) wants the one slot with a single core,
   * slot 1, which has her 3000 MB only since it was updated. */
  int carol_on_1 = 0;
  for (size_t c = 0; c < classad_pairs_count(living); c++)
    carol_on_1 |= classad_pairs_jobs(living)[c] == 4 &&
                  classad_pairs_slots(living)[c] == 1;
  CHECK(carol_on_1);
  classad_pairs_free(living);
  /* The work is optional. */
  OK(classad_living_pool_cycle(pool, &living, NULL));
  CHECK(classad_pairs_count(living) > 0);

  /* That cycle's matches made into claims: every match starts its job on its
   * slot (static slots: the same ids), nothing evicted or refused; applied
   * once only. */
  classad_pairs *started = NULL, *evicted = NULL, *refused = NULL;
  OK(classad_living_pool_apply_matches(pool, &started, &evicted, &refused));
  n = classad_pairs_count(living);
  CHECK(classad_pairs_count(started) == n);
  CHECK(memcmp(classad_pairs_jobs(started), classad_pairs_jobs(living),
               n * sizeof(uint32_t)) == 0);
  CHECK(memcmp(classad_pairs_slots(started), classad_pairs_slots(living),
               n * sizeof(uint32_t)) == 0);
  CHECK(classad_pairs_count(evicted) == 0 && classad_pairs_count(refused) == 0);
  uint32_t ran = classad_pairs_jobs(started)[0];
  uint32_t ran_on = classad_pairs_slots(started)[0];
  classad_pairs_free(started);
  classad_pairs_free(evicted);
  classad_pairs_free(refused);
  classad_pairs_free(living);
  OK(classad_living_pool_apply_matches(pool, &started, &evicted, &refused));
  CHECK(classad_pairs_count(started) == 0 && classad_pairs_count(refused) == 0);
  classad_pairs_free(started);
  classad_pairs_free(evicted);
  classad_pairs_free(refused);
  /* The jobs run: the next cycle matches none of them. */
  OK(classad_living_pool_advance_to(pool, start + 120));
  OK(classad_living_pool_cycle(pool, &living, NULL));
  for (size_t c = 0; c < classad_pairs_count(living); c++)
    CHECK(classad_pairs_jobs(living)[c] != ran);
  classad_pairs_free(living);
  /* A claim the startd releases: the slot freed, its job idle again (and
   * matched at once: the clock stays); a slot that is not claimed: nothing. */
  uint32_t rfreed = 0, rdeleted = 0, revicted = 0;
  OK(classad_living_pool_release_claim(pool, ran_on, &rfreed, &rdeleted,
                                       &revicted));
  CHECK(rfreed == ran_on && rdeleted == UINT32_MAX && revicted == ran);
  OK(classad_living_pool_release_claim(pool, ran_on, &rfreed, NULL, NULL));
  CHECK(rfreed == UINT32_MAX);
  CHECK(classad_living_pool_release_claim(pool, 77, NULL, NULL, NULL) ==
        CLASSAD_ERR_ARGUMENT);
  OK(classad_living_pool_cycle(pool, &living, NULL));
  int ran_again = 0;
  for (size_t c = 0; c < classad_pairs_count(living); c++)
    ran_again |= classad_pairs_jobs(living)[c] == ran;
  CHECK(ran_again);
  classad_pairs_free(living);
  OK(classad_living_pool_apply_matches(pool, &started, &evicted, &refused));
  CHECK(classad_pairs_count(refused) == 0);
  for (size_t c = 0; c < classad_pairs_count(started); c++)
    if (classad_pairs_jobs(started)[c] == ran)
      ran_on = classad_pairs_slots(started)[c];
  classad_pairs_free(started);
  classad_pairs_free(evicted);
  classad_pairs_free(refused);
  /* A job that ends frees its static slot and leaves the queue. */
  uint32_t freed = 0, deleted = 0;
  OK(classad_living_pool_end_job(pool, ran, &freed, &deleted));
  CHECK(freed == ran_on && deleted == UINT32_MAX);
  OK(classad_living_pool_size(pool, &nj, &ns));
  CHECK(nj == 3 && ns == 3);
  CHECK(classad_living_pool_end_job(pool, ran, NULL, NULL) ==
        CLASSAD_ERR_ARGUMENT);
  /* Put back as it was, for what follows. */
  classad_ad *back =
      old_ad("ClusterId = 9\nProcId = 0\nOwner = \"dave\"\nJobStatus = 1\n"
             "RequestMemory = 512\nRequirements = true\n");
  OK(classad_living_pool_add_job(pool, back, &id));
  classad_ad_free(back);

  /* Unknown ids: refused, named, nothing changed. */
  CHECK(classad_living_pool_remove_job(pool, 0) == CLASSAD_ERR_ARGUMENT);
  CHECK(last_error_has("no job has id 0"));
  CHECK(classad_living_pool_update_job(pool, 17, bigger) ==
        CLASSAD_ERR_ARGUMENT);
  CHECK(last_error_has("no job has id 17"));
  CHECK(classad_living_pool_update_slot(pool, 3, bigger) ==
        CLASSAD_ERR_ARGUMENT);
  CHECK(last_error_has("no slot has id 3"));
  CHECK(classad_living_pool_remove_slot(pool, 4000000000u) ==
        CLASSAD_ERR_ARGUMENT);
  CHECK(last_error_has("no slot has id 4000000000"));
  OK(classad_living_pool_size(pool, &nj, &ns));
  CHECK(nj == 4 && ns == 3);

  /* NULL where a pointer is needed. */
  CHECK(classad_living_pool_add_job(NULL, bigger, &id) == CLASSAD_ERR_NULL);
  CHECK(last_error_has("pool is NULL"));
  CHECK(classad_living_pool_add_slot(pool, NULL, &id) == CLASSAD_ERR_NULL);
  CHECK(last_error_has("ad is NULL"));
  CHECK(classad_living_pool_add_slot(pool, bigger, NULL) == CLASSAD_ERR_NULL);
  CHECK(classad_living_pool_update_slot(pool, 1, NULL) == CLASSAD_ERR_NULL);
  CHECK(classad_living_pool_advance_to(NULL, 0) == CLASSAD_ERR_NULL);
  living = (classad_pairs *)1;
  CHECK(classad_living_pool_cycle(NULL, &living, &work) == CLASSAD_ERR_NULL);
  CHECK(living == NULL);
  CHECK(classad_living_pool_cycle(pool, NULL, &work) == CLASSAD_ERR_NULL);
  CHECK(last_error_has("matches_out is NULL"));
  classad_living_pool *none = (classad_living_pool *)1;
  CHECK(classad_living_pool_new(NULL, jobs, NULL, 0, NULL, 0, 0, &none) ==
        CLASSAD_ERR_NULL);
  CHECK(none == NULL);
  classad_living_pool_free(NULL);
  classad_ad_free(bigger);

  /* The accountant after cycles with matches: their submitters' usage, in
   * condor_userprio -l's layout, which a new pool reads back. */
  classad_string *acct = NULL;
  OK(classad_living_pool_accountant(pool, &acct));
  const char *text = classad_string_data(acct);
  size_t text_len = classad_string_len(acct);
  CHECK(text_len > 0 && strlen(text) == text_len);
  CHECK(strstr(text, "LastUpdate = ") != NULL);
  CHECK(strstr(text, "carol") != NULL);
  classad_living_pool *resumed = NULL;
  OK(classad_living_pool_new(slots, jobs, NULL, 0, text, text_len, start + 120,
                             &resumed));
  classad_string *again = NULL;
  OK(classad_living_pool_accountant(resumed, &again));
  CHECK(strcmp(classad_string_data(again), text) == 0);
  classad_string_free(again);
  classad_living_pool_free(resumed);
  classad_string_free(acct);

  /* Plain priorities lines as the accountant; condor_userprio's table and a
   * configuration that does not parse are refused. */
  const char *plain = "alice 2.5 100\nbob 0.5\n";
  const char *config = "PRIORITY_HALFLIFE = 3600\n";
  OK(classad_living_pool_new(slots, jobs, config, strlen(config), plain,
                             strlen(plain), start, &resumed));
  classad_living_pool_free(resumed);
  const char *table = "Last Priority Update:  1/1  00:00\n";
  resumed = (classad_living_pool *)1;
  CHECK(classad_living_pool_new(slots, jobs, NULL, 0, table, strlen(table),
                                start, &resumed) == CLASSAD_ERR_PARSE);
  CHECK(resumed == NULL);
  CHECK(last_error_has("<accountant>:1:"));
  const char *bad_config = "NEGOTIATOR_PRE_JOB_RANK = (1 +";
  CHECK(classad_living_pool_new(slots, jobs, bad_config, strlen(bad_config),
                                NULL, 0, start,
                                &resumed) == CLASSAD_ERR_PARSE);
  CHECK(resumed == NULL);

  classad_living_pool_free(pool);
  classad_ad_list_free(slots);
  classad_ad_list_free(jobs);
}

#ifdef CLASSAD_TEST_LEAK
/* Built with -DCLASSAD_TEST_LEAK by src/capi/tests/c_program.rs, to show that
 * the leak check fails a program that forgets to free a handle. */
static void leak_on_purpose(void) {
  classad_ad *leaked = NULL;
  OK(classad_ad_parse("[ a = 1 ]", 9, CLASSAD_FORMAT_NEW, &leaked));
  CHECK(leaked != NULL);
}
#endif

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  CHECK(classad_version() != NULL && strlen(classad_version()) > 0);
  test_values();
  test_errors();
  test_pools(argv[1]);
  test_living();
#ifdef CLASSAD_TEST_LEAK
  leak_on_purpose();
#endif
  printf("test_capi: %d checks passed (classad %s)\n", checks,
         classad_version());
  return 0;
}

/*
 * test_vdoc.c - unit tests of src/run/vdoc.c, verify.json's one codec: the
 * committed H100 example (written by kevo verify before the codec existed)
 * reads into the struct and writes back as the same JSON; a full document
 * survives the trip; older and partial files load with defaults; a file
 * that is not an object is refused, naming it.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fsutil.h"
#include "vdoc.h"

#define EXAMPLE "examples/h100-gemm-fp32-1024x768x512/verify.json"

static cJSON *read_example(void)
{
    char *text = NULL;
    if (fs_read_file(EXAMPLE, &text, NULL))
        return NULL;
    cJSON *j = cJSON_Parse(text);
    free(text);
    return j;
}

static void the_example_reads_and_writes_back_unchanged(void)
{
    cJSON *j = read_example(), *back = NULL;
    struct vdoc *d = NULL;
    char err[256] = "";
    CHECK_MSG(j != NULL, "cannot read %s", EXAMPLE);
    CHECK(j && vdoc_parse(j, EXAMPLE, &d, err, sizeof err) == KEVO_OK);
    if (!d) {
        cJSON_Delete(j);
        return;
    }
    CHECK(!strcmp(d->gpu.name, "NVIDIA H100 80GB HBM3") &&
          !strncmp(d->gpu.uuid, "GPU-5f2eaf55", 12));
    CHECK(!strcmp(d->software.driver, "580.159.04") &&
          d->software.cupti == 130001 && d->software.cublas == 130100);
    CHECK(d->same_gpu && d->same_software && d->n_entries >= 1 &&
          d->n_baselines == 1 && !strcmp(d->baselines[0].name, "cublas"));
    CHECK(d->n_baseline_rounds == -1); /* written before it existed */
    CHECK(vdoc_find(d, d->best_hash) && vdoc_find(d, d->best_hash)->best);
    CHECK(!vdoc_find(d, "0000000000000000"));
    back = vdoc_json(d);
    CHECK_MSG(cJSON_Compare(j, back, 1), "the writer changed the format");
    cJSON_Delete(back);
    cJSON_Delete(j);
    vdoc_free(d);
}

static void a_full_document_survives_the_trip(void)
{
    struct vdoc *a = vdoc_new(), *b = NULL;
    char err[256];
    snprintf(a->run, sizeof a->run, "runs/x");
    snprintf(a->gpu.uuid, sizeof a->gpu.uuid, "GPU-1");
    a->software.cupti = -1; /* unknown: null */
    a->software.cublas = 0;
    a->verified = 1;
    snprintf(a->best_hash, sizeof a->best_hash, "0123456789abcdef");
    a->reps = 2;
    a->n_baseline_rounds = 3;
    a->baseline_rounds_ns[2] = 777.5;
    a->n_entries = 2;
    struct vdoc_entry *e = &a->entries[1];
    snprintf(e->hash, sizeof e->hash, "0123456789abcdef");
    snprintf(e->tpl, sizeof e->tpl, "sgemm_tiled");
    snprintf(e->outcome, sizeof e->outcome, "wrong");
    snprintf(e->detail, sizeof e->detail, "max error 3.1 of tolerance");
    e->n_params = 2;
    snprintf(e->param_names[1], sizeof e->param_names[1], "BK");
    e->params[1] = 32;
    e->vs_baseline_paired = 1.02;
    e->vs_baseline_pairs = 40;
    e->n_rounds = 1;
    e->rounds_ns[0] = 1234.25;
    a->nvml_end = cJSON_CreateObject();
    cJSON *j = vdoc_json(a);
    char *t = cJSON_PrintUnformatted(j);
    cJSON *back = cJSON_Parse(t);
    CHECK(vdoc_parse(back, "v.json", &b, err, sizeof err) == KEVO_OK);
    if (b) {
        CHECK(!strcmp(b->run, "runs/x") && !strcmp(b->gpu.uuid, "GPU-1") &&
              !b->gpu.name[0]);
        CHECK(b->software.cupti == -1 && b->software.cublas == 0);
        CHECK(b->verified && b->reps == 2 && b->n_baseline_rounds == 3 &&
              b->baseline_rounds_ns[2] == 777.5);
        const struct vdoc_entry *x = vdoc_find(b, "0123456789abcdef");
        CHECK(x == &b->entries[1] && !strcmp(x->outcome, "wrong") &&
              !strcmp(x->detail, "max error 3.1 of tolerance"));
        CHECK(x && x->n_params == 2 && !strcmp(x->param_names[1], "BK") &&
              x->params[1] == 32 && x->vs_baseline_paired == 1.02 &&
              x->vs_baseline_pairs == 40 && x->n_rounds == 1 &&
              x->rounds_ns[0] == 1234.25);
        CHECK(b->nvml_end && !b->fingerprint);
    }
    vdoc_free(a);
    vdoc_free(b);
    cJSON_Delete(j);
    cJSON_Delete(back);
    free(t);
}

static void older_and_partial_files_load(void)
{
    struct vdoc *d = NULL;
    char err[256] = "";
    cJSON *o = cJSON_Parse("{\"gpu\": \"GPU-old\", \"verified\": true, "
                           "\"entries\": [{\"hash\": \"aa\"}, 7]}");
    CHECK(vdoc_parse(o, "v.json", &d, err, sizeof err) == KEVO_OK);
    if (d) {
        CHECK(!strcmp(d->gpu.uuid, "GPU-old") && d->verified &&
              d->n_entries == 2 && d->reps == 0);
        CHECK(d->software.cupti == -1 && d->n_baseline_rounds == -1);
    }
    vdoc_free(d);
    cJSON_Delete(o);
    o = cJSON_Parse("[1, 2]");
    CHECK(vdoc_parse(o, "runs/r/verify.json", &d, err, sizeof err) ==
              KEVO_EPARSE &&
          !d);
    CHECK_MSG(strstr(err, "'runs/r/verify.json': not a JSON object"), "%s",
              err);
    cJSON_Delete(o);
}

int main(void)
{
    RUN(the_example_reads_and_writes_back_unchanged,
        "the committed example reads and writes back as the same JSON");
    RUN(a_full_document_survives_the_trip,
        "a full document survives the trip through text");
    RUN(older_and_partial_files_load,
        "older and partial files load with defaults; a non-object is "
        "refused");
    TEST_DONE();
}

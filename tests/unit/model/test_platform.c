/* The platform and storage detectors on small event fragments, and Photon's SQL metrics on
 * tests/data/photon-db13.3-q88-excerpt.json (events cut from the Databricks 13.3 Photon NDS
 * q88 log: its environment, one Photon plan, four stages and seven of their tasks). */
#include <criterion/criterion.h>
#include "clarity/model.h"
#include "load_helpers.h"

static struct clarity_app *load(const char *text)
{
    struct clarity_app *a = NULL;
    struct clarity_error err = {0};
    cr_assert_eq(load_text(text, &a, &err), CLARITY_OK, "load failed: %s", err.msg);
    return a;
}

#define ENV(spark, hadoop, cp)                                                                         \
    "{\"Event\":\"SparkListenerEnvironmentUpdate\",\"JVM Information\":{},\"Spark Properties\":{" spark \
    "},\"Hadoop Properties\":{" hadoop "},\"System Properties\":{},\"Metrics Properties\":{},"          \
    "\"Classpath Entries\":{" cp "}}\n"

Test(platform, scheme_of)
{
    cr_assert_eq(clarity_scheme_of("s3a://b/k", 9), CLARITY_SCHEME_S3);
    cr_assert_eq(clarity_scheme_of("gs://b", 6), CLARITY_SCHEME_GS);
    cr_assert_eq(clarity_scheme_of("abfss://c@a.dfs.core.windows.net/p", 34), CLARITY_SCHEME_ABFS);
    cr_assert_eq(clarity_scheme_of("wasbs://c@a/p", 13), CLARITY_SCHEME_WASB);
    cr_assert_eq(clarity_scheme_of("dbfs:/mnt/x", 11), CLARITY_SCHEME_DBFS);
    cr_assert_eq(clarity_scheme_of("oss://b/k", 9), CLARITY_SCHEME_OSS);
    cr_assert_eq(clarity_scheme_of("hdfs://nn:8020/p", 16), CLARITY_SCHEME_HDFS);
    cr_assert_eq(clarity_scheme_of("file:/tmp/x", 11), CLARITY_SCHEME_FILE);
    cr_assert_eq(clarity_scheme_of("viewfs://c/p", 12), CLARITY_SCHEME_OTHER);
    cr_assert_eq(clarity_scheme_of("/tmp/x", 6), -1);
    cr_assert_eq(clarity_scheme_of("s3:", 3), -1);   /* cut before "//": names nothing */
    cr_assert(clarity_scheme_is_object_store(CLARITY_SCHEME_DBFS));
    cr_assert(!clarity_scheme_is_object_store(CLARITY_SCHEME_HDFS));
}

Test(platform, databricks_photon_runtime)
{
    struct clarity_app *a = load(ENV(
        "\"spark.master\":\"spark://10.0.0.1:7077\","
        "\"spark.databricks.clusterUsageTags.sparkVersion\":\"13.3.x-aarch64-photon-scala2.12\","
        "\"spark.databricks.clusterUsageTags.cloudProvider\":\"AWS\"",
        "\"fs.defaultFS\":\"dbfs:///\"", ""));
    const struct clarity_platform *p = &a->platform;
    cr_assert_eq(p->vendor, CLARITY_VENDOR_DATABRICKS);
    cr_assert_str_eq(p->runtime, "13.3");
    cr_assert(p->photon);
    cr_assert_str_eq(p->arch, "aarch64");
    cr_assert_str_eq(p->cloud, "AWS");
    cr_assert_eq(p->manager, CLARITY_CM_STANDALONE);
    cr_assert_eq(p->default_fs, CLARITY_SCHEME_DBFS);
    cr_assert_eq(p->input_store, CLARITY_STORE_UNKNOWN);   /* no path read: not guessed from defaultFS */
    clarity_app_free(a);
}

Test(platform, databricks_without_photon)
{
    struct clarity_app *a = load(ENV("\"spark.databricks.clusterUsageTags.sparkVersion\":\"11.3.x-scala2.12\"", "", ""));
    cr_assert_str_eq(a->platform.runtime, "11.3");
    cr_assert(!a->platform.photon);
    cr_assert_str_eq(a->platform.arch, "");
    cr_assert_eq(a->platform.manager, CLARITY_CM_UNKNOWN);
    clarity_app_free(a);
}

Test(platform, dataproc_version_from_listener_jar)
{
    struct clarity_app *a = load(ENV(
        "\"spark.master\":\"yarn\",\"spark.dataproc.engine\":\"default\"", "\"fs.defaultFS\":\"hdfs://m\"",
        "\"/usr/lib/spark/jars/parquet-hadoop-1.13.1-dataproc-1.0.3.jar\":\"System Classpath\","
        "\"/usr/lib/spark/jars/dataproc-spark-metrics-listener-dataproc-2.2-1.12.0.jar\":\"System Classpath\""));
    cr_assert_eq(a->platform.vendor, CLARITY_VENDOR_DATAPROC);
    cr_assert_str_eq(a->platform.runtime, "2.2");
    cr_assert_eq(a->platform.manager, CLARITY_CM_YARN);
    cr_assert_eq(a->platform.default_fs, CLARITY_SCHEME_HDFS);
    clarity_app_free(a);
}

Test(platform, emr_kubernetes_local_unknown)
{
    struct clarity_app *a = load(ENV("\"spark.master\":\"yarn\"", "\"fs.s3.impl\":\"com.amazon.ws.emr.hadoop.fs.EmrFileSystem\"", ""));
    cr_assert_eq(a->platform.vendor, CLARITY_VENDOR_EMR);
    cr_assert_eq(a->platform.manager, CLARITY_CM_YARN);
    cr_assert_str_eq(a->platform.runtime, "");   /* the release label is not in the log */
    clarity_app_free(a);
    a = load(ENV("\"spark.master\":\"k8s://https://api:6443\"", "", ""));
    cr_assert_eq(a->platform.manager, CLARITY_CM_KUBERNETES);
    cr_assert_eq(a->platform.vendor, CLARITY_VENDOR_NONE);
    clarity_app_free(a);
    a = load(ENV("\"spark.kubernetes.namespace\":\"x\"", "\"yarn.resourcemanager.address\":\"rm:8032\"", ""));
    cr_assert_eq(a->platform.manager, CLARITY_CM_KUBERNETES);   /* Hadoop's yarn.* keys are not evidence */
    clarity_app_free(a);
    a = load(ENV("\"spark.master\":\"local[*]\"", "", ""));
    cr_assert_eq(a->platform.manager, CLARITY_CM_LOCAL);
    clarity_app_free(a);
    a = load(ENV("", "\"yarn.resourcemanager.address\":\"rm:8032\"", ""));
    cr_assert_eq(a->platform.manager, CLARITY_CM_UNKNOWN);
    cr_assert_eq(a->platform.vendor, CLARITY_VENDOR_NONE);
    clarity_app_free(a);
}

#define SQL(id, plan)                                                                                    \
    "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\",\"executionId\":" id \
    ",\"description\":\"q\",\"details\":\"\",\"physicalPlanDescription\":\"" plan "\","                  \
    "\"sparkPlanInfo\":{\"nodeName\":\"X\",\"simpleString\":\"X\",\"children\":[],\"metadata\":{},"        \
    "\"metrics\":[]},\"time\":1}\n"

Test(platform, storage_from_plans_and_rdds)
{
    struct clarity_app *a = load(
        ENV("\"spark.master\":\"yarn\"", "", "")
        SQL("1", "(1) Scan parquet\\nLocation: InMemoryFileIndex [gs://b/t1, gs://b/t2]\\nReadSchema: x\\n")
        SQL("2", "(1) Scan parquet\\nLocation: PreparedDeltaFileIndex(1 paths)[s3a://b/t3]\\n"
                 "Execute InsertIntoHadoopFsRelationCommand (2)\\n\\n(2) Execute InsertIntoHadoopFsRelationCommand\\n"
                 "Input [1]: [v#0]\\nArguments: gs://b/out, false, Parquet\\n\\n"
                 "Execute InsertIntoHadoopFsRelationCommand gs://b/out2, false, Parquet\\n"));
    const struct clarity_platform *p = &a->platform;
    cr_assert_eq(p->input[CLARITY_SCHEME_GS], 2);
    cr_assert_eq(p->input[CLARITY_SCHEME_S3], 1);
    cr_assert_eq(p->input_store, CLARITY_STORE_OBJECT);
    cr_assert_eq(p->input_scheme, CLARITY_SCHEME_GS);
    cr_assert_eq(p->output[CLARITY_SCHEME_GS], 2);    /* formatted (Arguments line) and simple plans */
    cr_assert_eq(p->output_store, CLARITY_STORE_OBJECT);
    clarity_app_free(a);

    a = load(ENV("\"spark.master\":\"yarn\"", "\"fs.defaultFS\":\"hdfs://nn\"", "")
             SQL("1", "Location: InMemoryFileIndex [gs://b/t1]\\n")
             "{\"Event\":\"SparkListenerStageSubmitted\",\"Stage Info\":{\"Stage ID\":0,\"Stage Attempt ID\":0,"
             "\"Stage Name\":\"s\",\"Number of Tasks\":1,\"RDD Info\":[{\"RDD ID\":0,\"Name\":\"/data/in.txt\","
             "\"Parent IDs\":[],\"Storage Level\":{},\"Number of Partitions\":1,\"Number of Cached Partitions\":0,"
             "\"Memory Size\":0,\"Disk Size\":0}],\"Parent IDs\":[],\"Details\":\"\",\"Accumulables\":[]}}\n");
    cr_assert_eq(a->platform.input[CLARITY_SCHEME_HDFS], 1);   /* a bare path: on fs.defaultFS */
    cr_assert_eq(a->platform.input_store, CLARITY_STORE_MIXED);
    cr_assert_eq(a->platform.output_store, CLARITY_STORE_UNKNOWN);
    clarity_app_free(a);
}

Test(platform, photon_sql_metrics_from_q88_excerpt)
{
    struct clarity_app *a = NULL;
    struct clarity_error err = {0};
    cr_assert_eq(load_fixture("photon-db13.3-q88-excerpt.json", &a, &err), CLARITY_OK, "%s", err.msg);
    const struct clarity_platform *p = &a->platform;
    cr_assert_eq(p->vendor, CLARITY_VENDOR_DATABRICKS);
    cr_assert_str_eq(p->runtime, "13.3");
    cr_assert(p->photon);
    /* the Spark version from Databricks' DBCEventLoggingListenerMetadata (no LogStart) */
    cr_assert_str_eq(clarity_app_str(a, a->spark_version), "3.4.1");
    cr_assert_eq(a->integrity.events_unknown, 0);
    cr_assert_eq(p->input[CLARITY_SCHEME_S3], 3);
    cr_assert_eq(p->input_store, CLARITY_STORE_OBJECT);
    /* final accumulator values of the four stages, as python over the log's events computes */
    cr_assert_eq(p->photon_v[CLARITY_PH_SCAN_IO_WAIT_NS], 40212583267LL);
    cr_assert_eq(p->photon_v[CLARITY_PH_SCAN_CLOUD_BYTES], 16767449990LL);
    cr_assert_eq(p->photon_v[CLARITY_PH_SHUFFLE_WRITE_BYTES], 7719);
    cr_assert_eq(p->photon_v[CLARITY_PH_SHUFFLE_REMOTE_BYTES], 30876);
    cr_assert_eq(p->photon_v[CLARITY_PH_FETCH_WAIT_MS], 315);
    cr_assert(p->photon_has[CLARITY_PH_SHUFFLE_WRITE_NS]);
    /* spill metrics are on join and sink nodes this excerpt keeps only partly: present (the
     * sink's), and 0 */
    cr_assert(p->photon_has[CLARITY_PH_SPILL_BYTES]);
    cr_assert_eq(p->photon_v[CLARITY_PH_SPILL_BYTES], 0);
    clarity_app_free(a);
}

Test(platform, photon_metric_absent_is_not_zero)
{
    struct clarity_app *a = load(ENV("\"spark.databricks.clusterUsageTags.runtimeEngine\":\"PHOTON\"", "", ""));
    cr_assert(a->platform.photon);
    for (int m = 0; m < CLARITY_PH_COUNT; m++) cr_assert(!a->platform.photon_has[m], "%s", clarity_photon_metric_name(m));
    clarity_app_free(a);
}

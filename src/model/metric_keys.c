/* Generated once from the Task Metrics key lists in eventlog-format.md section 2.5: maps a
 * key to its metric by length, then one memcmp, so each Task Metrics object is read in a
 * single pass instead of one linear key search per metric. Both push-shuffle spellings. */
#include <string.h>
#include "model/metric_keys.h"

int clarity_metric_key_top(const char *k, size_t n)
{
    switch (n) {
    case 11:
        if (!memcmp(k, "Result Size", 11)) return CLARITY_TM_RESULT_SIZE;
        if (!memcmp(k, "JVM GC Time", 11)) return CLARITY_TM_GC_MS;
        return -1;
    case 17:
        if (!memcmp(k, "Executor Run Time", 17)) return CLARITY_TM_RUN_MS;
        if (!memcmp(k, "Executor CPU Time", 17)) return CLARITY_TM_CPU_NS;
        return -1;
    case 18:
        if (!memcmp(k, "Disk Bytes Spilled", 18)) return CLARITY_TM_DISK_SPILLED;
        return -1;
    case 20:
        if (!memcmp(k, "Memory Bytes Spilled", 20)) return CLARITY_TM_MEM_SPILLED;
        return -1;
    case 21:
        if (!memcmp(k, "Peak Execution Memory", 21)) return CLARITY_TM_PEAK_EXEC_MEM;
        return -1;
    case 25:
        if (!memcmp(k, "Executor Deserialize Time", 25)) return CLARITY_TM_DESER_MS;
        if (!memcmp(k, "Result Serialization Time", 25)) return CLARITY_TM_RESULT_SER_MS;
        return -1;
    case 29:
        if (!memcmp(k, "Executor Deserialize CPU Time", 29)) return CLARITY_TM_DESER_CPU_NS;
        if (!memcmp(k, "Peak On Heap Execution Memory", 29)) return CLARITY_TM_PEAK_ONHEAP_EXEC_MEM;
        return -1;
    case 30:
        if (!memcmp(k, "Peak Off Heap Execution Memory", 30)) return CLARITY_TM_PEAK_OFFHEAP_EXEC_MEM;
        return -1;
    default: return -1;
    }
}

int clarity_metric_key_shuffle_read(const char *k, size_t n)
{
    switch (n) {
    case 15:
        if (!memcmp(k, "Fetch Wait Time", 15)) return CLARITY_TM_SR_FETCH_WAIT_MS;
        return -1;
    case 16:
        if (!memcmp(k, "Local Bytes Read", 16)) return CLARITY_TM_SR_LOCAL_BYTES;
        return -1;
    case 17:
        if (!memcmp(k, "Remote Bytes Read", 17)) return CLARITY_TM_SR_REMOTE_BYTES;
        return -1;
    case 18:
        if (!memcmp(k, "Total Records Read", 18)) return CLARITY_TM_SR_RECORDS;
        return -1;
    case 20:
        if (!memcmp(k, "Local Blocks Fetched", 20)) return CLARITY_TM_SR_LOCAL_BLOCKS;
        return -1;
    case 21:
        if (!memcmp(k, "Remote Blocks Fetched", 21)) return CLARITY_TM_SR_REMOTE_BLOCKS;
        return -1;
    case 24:
        if (!memcmp(k, "Remote Requests Duration", 24)) return CLARITY_TM_SR_REMOTE_REQS_MS;
        return -1;
    case 25:
        if (!memcmp(k, "Remote Bytes Read To Disk", 25)) return CLARITY_TM_SR_REMOTE_BYTES_TO_DISK;
        return -1;
    default: return -1;
    }
}

int clarity_metric_key_shuffle_push(const char *k, size_t n)
{
    switch (n) {
    case 21:
        if (!memcmp(k, "Merged Fallback Count", 21)) return CLARITY_TM_SP_MERGED_FALLBACK;
        return -1;
    case 23:
        if (!memcmp(k, "Merged Local Bytes Read", 23)) return CLARITY_TM_SP_LOCAL_MERGED_BYTES;
        return -1;
    case 24:
        if (!memcmp(k, "Merged Remote Bytes Read", 24)) return CLARITY_TM_SP_REMOTE_MERGED_BYTES;
        return -1;
    case 27:
        if (!memcmp(k, "Corrupt Merged Block Chunks", 27)) return CLARITY_TM_SP_CORRUPT_MERGED_CHUNKS;
        if (!memcmp(k, "Merged Fetch Fallback Count", 27)) return CLARITY_TM_SP_MERGED_FALLBACK;
        if (!memcmp(k, "Merged Local Blocks Fetched", 27)) return CLARITY_TM_SP_LOCAL_MERGED_BLOCKS;
        if (!memcmp(k, "Merged Local Chunks Fetched", 27)) return CLARITY_TM_SP_LOCAL_MERGED_CHUNKS;
        return -1;
    case 28:
        if (!memcmp(k, "Merged Remote Blocks Fetched", 28)) return CLARITY_TM_SP_REMOTE_MERGED_BLOCKS;
        if (!memcmp(k, "Merged Remote Chunks Fetched", 28)) return CLARITY_TM_SP_REMOTE_MERGED_CHUNKS;
        return -1;
    case 31:
        if (!memcmp(k, "Merged Remote Requests Duration", 31)) return CLARITY_TM_SP_REMOTE_MERGED_REQS_MS;
        return -1;
    default: return -1;
    }
}

int clarity_metric_key_shuffle_write(const char *k, size_t n)
{
    switch (n) {
    case 18:
        if (!memcmp(k, "Shuffle Write Time", 18)) return CLARITY_TM_SW_TIME_NS;
        return -1;
    case 21:
        if (!memcmp(k, "Shuffle Bytes Written", 21)) return CLARITY_TM_SW_BYTES;
        return -1;
    case 23:
        if (!memcmp(k, "Shuffle Records Written", 23)) return CLARITY_TM_SW_RECORDS;
        return -1;
    default: return -1;
    }
}

int clarity_metric_key_input(const char *k, size_t n)
{
    switch (n) {
    case 10:
        if (!memcmp(k, "Bytes Read", 10)) return CLARITY_TM_INPUT_BYTES;
        return -1;
    case 12:
        if (!memcmp(k, "Records Read", 12)) return CLARITY_TM_INPUT_RECORDS;
        return -1;
    default: return -1;
    }
}

int clarity_metric_key_output(const char *k, size_t n)
{
    switch (n) {
    case 13:
        if (!memcmp(k, "Bytes Written", 13)) return CLARITY_TM_OUTPUT_BYTES;
        return -1;
    case 15:
        if (!memcmp(k, "Records Written", 15)) return CLARITY_TM_OUTPUT_RECORDS;
        return -1;
    default: return -1;
    }
}

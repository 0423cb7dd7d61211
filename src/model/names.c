/* Names the model's enums carry in reports (SHS REST spellings where SHS has one). */
#include "clarity/model.h"

const char *clarity_tm_name(enum clarity_tm m)
{
    static const char *names[CLARITY_TM_COUNT] = {
        [CLARITY_TM_DESER_MS] = "executorDeserializeTime",
        [CLARITY_TM_DESER_CPU_NS] = "executorDeserializeCpuTime",
        [CLARITY_TM_RUN_MS] = "executorRunTime",
        [CLARITY_TM_CPU_NS] = "executorCpuTime",
        [CLARITY_TM_PEAK_EXEC_MEM] = "peakExecutionMemory",
        [CLARITY_TM_PEAK_ONHEAP_EXEC_MEM] = "peakOnHeapExecutionMemory",
        [CLARITY_TM_PEAK_OFFHEAP_EXEC_MEM] = "peakOffHeapExecutionMemory",
        [CLARITY_TM_RESULT_SIZE] = "resultSize",
        [CLARITY_TM_GC_MS] = "jvmGcTime",
        [CLARITY_TM_RESULT_SER_MS] = "resultSerializationTime",
        [CLARITY_TM_MEM_SPILLED] = "memoryBytesSpilled",
        [CLARITY_TM_DISK_SPILLED] = "diskBytesSpilled",
        [CLARITY_TM_INPUT_BYTES] = "bytesRead",
        [CLARITY_TM_INPUT_RECORDS] = "recordsRead",
        [CLARITY_TM_OUTPUT_BYTES] = "bytesWritten",
        [CLARITY_TM_OUTPUT_RECORDS] = "recordsWritten",
        [CLARITY_TM_SR_REMOTE_BLOCKS] = "remoteBlocksFetched",
        [CLARITY_TM_SR_LOCAL_BLOCKS] = "localBlocksFetched",
        [CLARITY_TM_SR_FETCH_WAIT_MS] = "fetchWaitTime",
        [CLARITY_TM_SR_REMOTE_BYTES] = "remoteBytesRead",
        [CLARITY_TM_SR_REMOTE_BYTES_TO_DISK] = "remoteBytesReadToDisk",
        [CLARITY_TM_SR_LOCAL_BYTES] = "localBytesRead",
        [CLARITY_TM_SR_RECORDS] = "recordsRead",
        [CLARITY_TM_SR_REMOTE_REQS_MS] = "remoteReqsDuration",
        [CLARITY_TM_SP_CORRUPT_MERGED_CHUNKS] = "corruptMergedBlockChunks",
        [CLARITY_TM_SP_MERGED_FALLBACK] = "mergedFetchFallbackCount",
        [CLARITY_TM_SP_REMOTE_MERGED_BLOCKS] = "remoteMergedBlocksFetched",
        [CLARITY_TM_SP_LOCAL_MERGED_BLOCKS] = "localMergedBlocksFetched",
        [CLARITY_TM_SP_REMOTE_MERGED_CHUNKS] = "remoteMergedChunksFetched",
        [CLARITY_TM_SP_LOCAL_MERGED_CHUNKS] = "localMergedChunksFetched",
        [CLARITY_TM_SP_REMOTE_MERGED_BYTES] = "remoteMergedBytesRead",
        [CLARITY_TM_SP_LOCAL_MERGED_BYTES] = "localMergedBytesRead",
        [CLARITY_TM_SP_REMOTE_MERGED_REQS_MS] = "remoteMergedReqsDuration",
        [CLARITY_TM_SW_BYTES] = "bytesWritten",
        [CLARITY_TM_SW_TIME_NS] = "writeTime",
        [CLARITY_TM_SW_RECORDS] = "recordsWritten",
    };
    return (unsigned)m < CLARITY_TM_COUNT ? names[m] : "?";
}

const char *clarity_locality_name(int loc)
{
    static const char *names[] = {"PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY", "UNKNOWN"};
    return (unsigned)loc <= CLARITY_LOC_UNKNOWN ? names[loc] : "UNKNOWN";
}

const char *clarity_stage_status_name(int s)
{
    static const char *names[] = {"PENDING", "ACTIVE", "COMPLETE", "FAILED", "SKIPPED"};
    return (unsigned)s <= CLARITY_STAGE_SKIPPED ? names[s] : "UNKNOWN";
}

/* The SQL execution start and end events the findings tests write into their logs (the
 * arrival-held replays read a query's arrival and end from them). */
#ifndef TEST_FINDINGS_SQL_EVENTS_H
#define TEST_FINDINGS_SQL_EVENTS_H
#include <stdio.h>

static inline void sql_start(FILE *f, int id, long t)
{
    fprintf(f, "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\",\"executionId\":%d,"
               "\"description\":\"q%d\",\"details\":\"\",\"physicalPlanDescription\":\"\",\"sparkPlanInfo\":"
               "{\"nodeName\":\"X\",\"simpleString\":\"X\",\"children\":[],\"metadata\":{},\"metrics\":[]},"
               "\"time\":%ld}\n", id, id, t);
}

static inline void sql_end(FILE *f, int id, long t)
{
    fprintf(f, "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd\",\"executionId\":%d,"
               "\"time\":%ld}\n", id, t);
}
#endif

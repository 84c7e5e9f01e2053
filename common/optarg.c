/*
 * optarg - check and convert command-line option values; see optarg.h.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>

#include "msg.h"
#include "optarg.h"
#include "workload.h"

uint64_t optarg_count(const char *text, const char *what, uint64_t min, uint64_t max)
{
    char *end;
    unsigned long long value;

    if (!isdigit((unsigned char)*text))
        msg_usage("%s: bad number \"%s\"", what, text);
    value = strtoull(text, &end, 10);
    if (*end != 0 || value < min || value > max)
        msg_usage("%s: \"%s\" is not a number from %llu to %llu", what, text,
                  (unsigned long long)min, (unsigned long long)max);
    return value;
}

double optarg_seconds(const char *text, const char *what)
{
    uint64_t ns;

    if (parse_duration_ns(text, &ns) != 0)
        msg_usage("%s: bad time \"%s\" (e.g. 2, 0.5, 250ms, 2m)", what, text);
    return (double)ns / 1e9;
}

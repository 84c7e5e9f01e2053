/*
 * clock - monotonic time in nanoseconds; see clock.h.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "clock.h"
#include "msg.h"

uint64_t clock_now_ns(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        msg_panic("clock_gettime(CLOCK_MONOTONIC) failed");
    return (uint64_t)ts.tv_sec * CLOCK_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

double clock_wall_s(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        msg_panic("clock_gettime(CLOCK_REALTIME) failed");
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double clock_process_cpu_s(void)
{
    struct rusage ru;

    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

/* n decimal digits at *p into *v, advancing p: 0, or -1 if they are not there. */
static int digits(const char **p, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (!isdigit((unsigned char)**p))
            return -1;
        *v = *v * 10 + (**p - '0');
    }
    return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static long long days_from_civil(int y, int m, int d)
{
    long long era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int parse_unix(const char *text, double *out)
{
    char *end;
    double v;

    /* strtod would take "inf", "nan", hex and leading space: digits and one point only */
    for (const char *p = text; *p; p++)
        if (!isdigit((unsigned char)*p) && *p != '.')
            return -1;
    if (!isdigit((unsigned char)text[0]) || strchr(text, '.') != strrchr(text, '.'))
        return -1;
    v = strtod(text, &end);
    if (*end != 0 || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int clock_parse_instant(const char *text, double *out)
{
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const char *p = text;
    int y, mo, d, h, mi, s, zh, zm, leap;
    double frac = 0, t;

    if (text[0] == '@')
        return parse_unix(text + 1, out);
    if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' || digits(&p, 2, &d))
        return -1;
    if (*p != 'T' && *p != 't' && *p != ' ')
        return -1;
    p++;
    if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi) || *p++ != ':' || digits(&p, 2, &s))
        return -1;
    if (*p == '.') {
        double scale = 0.1;

        if (!isdigit((unsigned char)*++p))
            return -1;
        for (; isdigit((unsigned char)*p); p++, scale /= 10)
            frac += (*p - '0') * scale;
    }
    leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    /* a leap second (:60) is refused: POSIX time has no name for it */
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap) ||
        h > 23 || mi > 59 || s > 59)
        return -1;
    t = (double)days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s + frac;
    if ((*p == 'Z' || *p == 'z') && p[1] == 0) {
        *out = t;
        return 0;
    }
    if (*p != '+' && *p != '-')
        return -1;
    {
        int sign = *p++ == '+' ? 1 : -1;

        if (digits(&p, 2, &zh) || *p++ != ':' || digits(&p, 2, &zm) || *p != 0 || zh > 23 ||
            zm > 59)
            return -1;
        *out = t - sign * (zh * 3600 + zm * 60);
    }
    return 0;
}

struct timeval clock_timeval(double seconds)
{
    struct timeval tv;
    double us;

    if (!(seconds > 0)) /* NaN too */
        seconds = 0;
    if (seconds > CLOCK_TIMEVAL_MAX_S)
        seconds = CLOCK_TIMEVAL_MAX_S;
    tv.tv_sec = (time_t)seconds;
    us = (seconds - (double)tv.tv_sec) * 1e6 + 0.5;
    tv.tv_usec = (suseconds_t)us;
    if (tv.tv_usec >= 1000000) { /* 0.9999996 s is 1 s, not 0 s and 1000000 us */
        tv.tv_sec++;
        tv.tv_usec -= 1000000;
    }
    return tv;
}

struct timeval clock_timeval_ns(uint64_t ns)
{
    struct timeval tv;
    uint64_t us = ns / CLOCK_NS_PER_US + (ns % CLOCK_NS_PER_US >= CLOCK_NS_PER_US / 2);
    uint64_t max_us = (uint64_t)CLOCK_TIMEVAL_MAX_S * 1000000;

    if (us > max_us)
        us = max_us;
    tv.tv_sec = (time_t)(us / 1000000);
    tv.tv_usec = (suseconds_t)(us % 1000000);
    return tv;
}

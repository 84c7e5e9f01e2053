/*
 * Unit tests: pm_command, PostMark's command language as spoolsim reads it.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pm_command.h"
#include "check_main.h"

struct captured {
    struct pm_session s;
    char *out, *err;
    size_t out_len, err_len;
    FILE *out_fp, *err_fp;
};

static void cap_open(struct captured *c)
{
    c->out_fp = open_memstream(&c->out, &c->out_len);
    c->err_fp = open_memstream(&c->err, &c->err_len);
    pm_command_session_init(&c->s, c->out_fp, c->err_fp);
}

static void cap_flush(struct captured *c)
{
    fflush(c->out_fp);
    fflush(c->err_fp);
}

static void cap_close(struct captured *c)
{
    pm_command_session_free(&c->s);
    fclose(c->out_fp);
    fclose(c->err_fp);
    free(c->out);
    free(c->err);
}

/* Feed a whole command text through the stream reader, as a file would. */
static int feed(struct captured *c, const char *text)
{
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    int quit = pm_command_stream(&c->s, in, NULL);

    fclose(in);
    cap_flush(c);
    return quit;
}

/* Every setting `set' changes, as one line to compare. */
static void settings_text(const struct pm_config *cfg, char *out, size_t len)
{
    snprintf(out, len,
             "size %u-%u, number %u, seed %u, transactions %u, read %u, write %u, "
             "subdirectories %u, buffering %d, bias %d/%d, terse %d",
             cfg->size_low, cfg->size_high, cfg->number, cfg->seed, cfg->transactions,
             cfg->read_block, cfg->write_block, cfg->subdirectories, cfg->buffered, cfg->bias_read,
             cfg->bias_create, cfg->terse);
}

/* What a command text leaves in the settings (settings_text()). */
static const struct {
    const char *text, *want;
} settings_cases[] = {
    {"", /* PostMark's defaults */
     "size 500-10000, number 500, seed 42, transactions 500, read 512, write 512, "
     "subdirectories 0, buffering 1, bias 5/5, terse 0"},
    {"set size 1000 2000\nset number 20\nset seed 7\nset transactions 99\n"
     "set read 4096\nset write 1024\nset buffering false\nset bias read -1\n"
     "set bias create 10\nset report terse\nset subdirectories 3\n",
     "size 1000-2000, number 20, seed 7, transactions 99, read 4096, write 1024, "
     "subdirectories 3, buffering 0, bias -1/10, terse 1"},
};

START_TEST(test_settings)
{
    struct captured c;
    char got[256];

    cap_open(&c);
    if (*settings_cases[_i].text)
        feed(&c, settings_cases[_i].text);
    cap_flush(&c);
    settings_text(&c.s.cfg, got, sizeof(got));
    ck_assert_str_eq(got, settings_cases[_i].want);
    ck_assert_uint_eq(c.err_len, 0);
    cap_close(&c);
}
END_TEST

/*
 * The size rules: a missing HIGH means a fixed size; HIGH below LOW is an
 * error and changes nothing (PostMark 1.53 took LOW alone without a word).
 */
START_TEST(test_size_rules)
{
    struct captured c;

    cap_open(&c);
    feed(&c, "set size 800 900\nset size 800 300\n");
    ck_assert_uint_eq(c.s.cfg.size_low, 800);
    ck_assert_uint_eq(c.s.cfg.size_high, 900);
    ck_assert_ptr_nonnull(strstr(c.err, "the high bound of the file size is below the low one"));
    feed(&c, "set size 600\n");
    ck_assert_uint_eq(c.s.cfg.size_high, 600);
    feed(&c, "set size 0 100\nset size\n");
    ck_assert_uint_eq(c.s.cfg.size_low, 600);
    ck_assert_ptr_nonnull(strstr(c.err, "Error: no file size low or high bounds specified"));
    cap_close(&c);
}
END_TEST

static const struct {
    const char *line;
    const char *error;
} bad_values[] = {
    {"set number 0", "Error: invalid number of files"},
    {"set number -5", "Error: invalid number of files"},
    {"set seed 0", "Error: invalid seed for random numbers"},
    {"set transactions", "Error: no transactions specified"},
    {"set read 0", "Error: invalid read block size"},
    {"set write x", "Error: invalid write block size"},
    {"set buffering yes", "Error: no buffering mode (true/false) specified"},
    {"set bias read 11", "Error: no bias specified (0-10 for greater chance,-1 to disable)"},
    {"set bias create -2", "Error: no bias specified (0-10 for greater chance,-1 to disable)"},
    {"set report loud", "Error: either 'verbose' or 'terse' required"},
    {"set subdirectories -1", "Error: invalid number of subdirectories"},
    {"set location", "Error: no directory name specified"},
    {"set location /nonexistent/spoolsim", "Error: cannot find location '/nonexistent/spoolsim'"},
    {"load /nonexistent/spoolsim.pmrc",
     "Error: cannot read configuration file '/nonexistent/spoolsim.pmrc'"},
    {"load", "Error: no configuration file specified"},
    {"set sync sometimes", "Error: sync must be none, fsync, fdatasync or osync"},
    {"set timing fast", "Error: timing must be precise or compat"},
};

START_TEST(test_bad_values)
{
    struct captured c;
    struct pm_config before;

    cap_open(&c);
    before = c.s.cfg;
    pm_command_line(&c.s, bad_values[_i].line);
    cap_flush(&c);
    ck_assert_msg(c.err && strstr(c.err, bad_values[_i].error), "%s: got \"%s\", want \"%s\"",
                  bad_values[_i].line, c.err ? c.err : "", bad_values[_i].error);
    ck_assert_uint_eq(c.s.cfg.number, before.number);
    ck_assert_uint_eq(c.s.cfg.seed, before.seed);
    ck_assert_int_eq(c.s.cfg.bias_read, before.bias_read);
    cap_close(&c);
}
END_TEST

/* The first command whose whole name prefixes the line wins; others are Eh?. */
START_TEST(test_prefix_matching)
{
    struct captured c;

    cap_open(&c);
    feed(&c, "settings\nset s 5\n");
    ck_assert_str_eq(c.out, "Eh?\nEh?\n");
    cap_close(&c);
    cap_open(&c);
    pm_command_line(&c.s, "set number  77"); /* parameter " 77": atoi skips the space */
    ck_assert_uint_eq(c.s.cfg.number, 77);
    pm_command_line(&c.s, "set numberX12"); /* parameter starts one byte after the name */
    ck_assert_uint_eq(c.s.cfg.number, 12);
    cap_close(&c);
}
END_TEST

/* The reader's fixes: CR LF, last line without LF, blank lines, comments. */
START_TEST(test_reader_fixes)
{
    struct captured c;

    cap_open(&c);
    ck_assert_int_eq(feed(&c, "# a comment\r\n\r\n   \nset number 33\r\n  # indented comment\n"
                              "set seed 9\r\nquit"),
                     1);
    ck_assert_uint_eq(c.s.cfg.number, 33);
    ck_assert_uint_eq(c.s.cfg.seed, 9);
    ck_assert_ptr_null(c.out ? strstr(c.out, "Eh?") : NULL);
    cap_close(&c);
}
END_TEST

START_TEST(test_quit_and_aliases)
{
    struct captured c;

    cap_open(&c);
    ck_assert_int_eq(feed(&c, "set number 5\nquit\nset number 6\n"), 1);
    ck_assert_uint_eq(c.s.cfg.number, 5);
    ck_assert_int_eq(pm_command_line(&c.s, "exit"), 1);
    ck_assert_int_eq(pm_command_line(&c.s, "?"), 0);
    cap_flush(&c);
    ck_assert_ptr_nonnull(strstr(c.out, "set size - Sets low and high bounds of files\n"));
    cap_close(&c);
}
END_TEST

START_TEST(test_help_prefix)
{
    struct captured c;

    cap_open(&c);
    pm_command_line(&c.s, "help set bias");
    cap_flush(&c);
    ck_assert_str_eq(c.out, "set bias read - Sets the chance of choosing read over append\n"
                            "set bias create - Sets the chance of choosing create over delete\n");
    cap_close(&c);
}
END_TEST

START_TEST(test_locations)
{
    struct captured c;
    char dir_a[] = "/tmp/pmcmd.XXXXXX", dir_b[] = "/tmp/pmcmd.XXXXXX", line[128];

    ck_assert_ptr_nonnull(mkdtemp(dir_a));
    ck_assert_ptr_nonnull(mkdtemp(dir_b));
    cap_open(&c);
    snprintf(line, sizeof(line), "set location %s 3", dir_a);
    pm_command_line(&c.s, line);
    snprintf(line, sizeof(line), "set location +%s", dir_b);
    pm_command_line(&c.s, line);
    ck_assert_uint_eq(c.s.cfg.nlocations, 2);
    ck_assert_str_eq(c.s.cfg.locations[0].dir, dir_a);
    ck_assert_uint_eq(c.s.cfg.locations[0].weight, 3);
    ck_assert_uint_eq(c.s.cfg.locations[1].weight, 1);
    snprintf(line, sizeof(line), "set location +%s zero", dir_b);
    pm_command_line(&c.s, line);
    cap_flush(&c);
    ck_assert_ptr_nonnull(strstr(c.err, "Error: ignoring invalid weight 'zero'"));
    snprintf(line, sizeof(line), "set location -%s", dir_a);
    pm_command_line(&c.s, line);
    ck_assert_uint_eq(c.s.cfg.nlocations, 2);
    ck_assert_str_eq(c.s.cfg.locations[0].dir, dir_b);
    snprintf(line, sizeof(line), "set location %s", dir_a);
    pm_command_line(&c.s, line);
    ck_assert_uint_eq(c.s.cfg.nlocations, 1);
    pm_command_line(&c.s, "show");
    cap_flush(&c);
    ck_assert_ptr_nonnull(strstr(c.out, "Working directory: \n"));
    snprintf(line, sizeof(line), "\t%s (weight=1)\n", dir_a);
    ck_assert_ptr_nonnull(strstr(c.out, line));
    cap_close(&c);
    rmdir(dir_a);
    rmdir(dir_b);
}
END_TEST

START_TEST(test_show)
{
    struct captured c;

    cap_open(&c);
    feed(&c, "set size 4096 4096\nset subdirectories 1\nset buffering false\n"
             "set sync fdatasync\nshow\n");
    ck_assert_ptr_nonnull(strstr(c.out, "Current configuration is:\n"
                                        "The base number of files is 500\n"
                                        "Transactions: 500\n"
                                        "Files are 4.00 kilobytes in size\n"));
    ck_assert_ptr_nonnull(strstr(c.out, "1 subdirectory will be used\n"
                                        "Block sizes are: read=512 bytes, write=512 bytes\n"
                                        "Biases are: read/append=5, create/delete=5\n"
                                        "Not using Unix buffered file I/O\n"
                                        "Random number generator seed is 42\n"
                                        "Report format is verbose.\n"
                                        "Sync before close: fdatasync; directory sync: off\n"));
    cap_close(&c);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_size_rules,  test_prefix_matching, test_reader_fixes, test_quit_and_aliases,
        test_help_prefix, test_locations,       test_show,         NULL};
    const struct check_loop loops[] = {CHECK_LOOP(test_settings, settings_cases),
                                       CHECK_LOOP(test_bad_values, bad_values)};

    return check_run_cases("pm_command", 0, tests, loops, 2);
}

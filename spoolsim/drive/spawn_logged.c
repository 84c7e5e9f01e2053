/*
 * spawn_logged - start a program with no input and its output in files; see spawn_logged.h.
 */
#include "config.h"

#include <fcntl.h>
#include <spawn.h>
#include <string.h>

#include "msg.h"
#include "spawn_logged.h"

extern char **environ;

pid_t spawn_logged(char *const argv[], const char *out, const char *err)
{
    return spawn_logged_env(argv, environ, out, err);
}

pid_t spawn_logged_env(char *const argv[], char *const envp[], const char *out, const char *err)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int status;

    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    status = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    if (status != 0) {
        msg_warn("cannot run %s: %s", argv[0], strerror(status));
        return -1;
    }
    return pid;
}

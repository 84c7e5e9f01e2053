/*
 * utf8 - well-formed UTF-8, one character at a time.
 *
 * utf8_char_len() says how long the character at p is if it is
 * well-formed UTF-8 (RFC 3629: no overlong form, no surrogate, nothing past
 * U+10FFFF, every byte of it there), or 0 if the byte at p starts none. It
 * reads p as a NUL-terminated string: a NUL cuts a sequence short, so it
 * never reads past the string's end. The writers of text for other
 * programs (JSON, the pictures' text for cairo) put U+FFFD for a byte that
 * starts no character, since their readers refuse it otherwise.
 */
#ifndef SPOOLSIM_UTF8_H
#define SPOOLSIM_UTF8_H

#include <stddef.h>

/* U+FFFD REPLACEMENT CHARACTER, in UTF-8: what stands for a byte that starts no character. */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

/* 1 to 4, the length of the well-formed character at p (p[0] != 0), or 0. */
size_t utf8_char_len(const unsigned char *p);

#endif

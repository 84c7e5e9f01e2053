/*
 * bev_out - write a bufferevent's output straight to its socket.
 *
 * A plain bufferevent switches its write event on when output is added
 * and off when it drains: two epoll_ctl calls around every SMTP reply or
 * command. Here output is written at once, and the write event is used
 * only when the socket is full. Keep EV_WRITE disabled on the bufferevent
 * and call bev_out_flush() after adding output; in the write callback,
 * call bev_out_written(). Plain sockets only: TLS bufferevents write
 * through OpenSSL and must be left to themselves.
 */
#ifndef SPOOLSIM_BEV_OUT_H
#define SPOOLSIM_BEV_OUT_H

#include <event2/bufferevent.h>

/* 0 when everything is sent, 1 when some waits for the write event, -1 on a socket error. */
int bev_out_flush(struct bufferevent *bev);

/* From the write callback: 1 (and the write event off again) once the output is empty. */
int bev_out_written(struct bufferevent *bev);

#endif

package io.cassandragsi.repair.http;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Rate-limited logging of refused and failed requests, so that a flood of bad requests cannot fill
 * the disk: at most {@code linesPerMinute} lines a minute; past that, requests are only counted
 * ({@link #suppressed}), and the next minute's first line says how many went unlogged. Logged
 * text is cut short and stripped of control characters (no log injection through decoded values).
 */
final class RejectLog {
    static final int DEFAULT_LINES_PER_MINUTE = 60;
    static final int MAX_LOGGED_CHARS = 200;

    private final Logger log;
    private final int linesPerMinute;
    private final LongSupplier nanoClock;
    private long windowStart;
    private int lines;
    private long unlogged;

    /** Requests not logged because of the rate limit, since start. */
    final LongAdder suppressed = new LongAdder();

    RejectLog(Logger log, int linesPerMinute, LongSupplier nanoClock) {
        this.log = log;
        this.linesPerMinute = linesPerMinute;
        this.nanoClock = nanoClock;
        this.windowStart = nanoClock.getAsLong();
    }

    /** A refused request (4xx). */
    void warn(String requestLine, int status, String error, String detail) {
        if (admit()) {
            log.warn("{} -> {} {}: {}", clean(requestLine), status, error, clean(detail));
        }
    }

    /** A failed request (5xx); {@code cause} for the stack trace of a bug, else null. */
    void error(String requestLine, int status, String error, String detail, Throwable cause) {
        if (admit()) {
            if (cause == null) {
                log.error("{} -> {} {}: {}", clean(requestLine), status, error, clean(detail));
            } else {
                log.error("{} -> {} {}: {}", clean(requestLine), status, error, clean(detail), cause);
            }
        }
    }

    /** True when a line may be logged now; counts it, or counts the request as unlogged. */
    synchronized boolean admit() {
        long now = nanoClock.getAsLong();
        if (now - windowStart >= TimeUnit.MINUTES.toNanos(1)) {
            if (unlogged > 0) {
                log.warn("{} more refused or failed HTTP requests were not logged in the last minute (rate limit: {} lines a minute)",
                        unlogged, linesPerMinute);
            }
            windowStart = now;
            lines = 0;
            unlogged = 0;
        }
        if (lines < linesPerMinute) {
            lines++;
            return true;
        }
        unlogged++;
        suppressed.increment();
        return false;
    }

    /** At most {@value #MAX_LOGGED_CHARS} characters, control characters replaced by '?'. */
    static String clean(String text) {
        if (text == null) {
            return null;
        }
        int n = Math.min(text.length(), MAX_LOGGED_CHARS);
        StringBuilder b = new StringBuilder(n + 32);
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            b.append(Character.isISOControl(c) ? '?' : c);
        }
        if (text.length() > n) {
            b.append("...(").append(text.length()).append(" characters)");
        }
        return b.toString();
    }
}

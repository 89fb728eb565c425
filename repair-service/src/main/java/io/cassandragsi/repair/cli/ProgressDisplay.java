package io.cassandragsi.repair.cli;

import io.cassandragsi.repair.jobs.ProgressSnapshot;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Shows a job's progress on the terminal: a progress bar over the token ranges (tongfei
 * progressbar) with rows/s and an ETA from the job's own rate when stderr is a terminal, else a
 * progress line every {@value #LINE_SECONDS} seconds (logs and pipes stay readable).
 */
final class ProgressDisplay implements AutoCloseable {
    static final int LINE_SECONDS = 10;

    private final Supplier<ProgressSnapshot> source;
    private final ScheduledExecutorService timer;
    private final ProgressBar bar;
    private final boolean showPhase;
    private volatile ProgressSnapshot last;

    /** {@code showPhase}: the job has several passes worth naming next to the rate. */
    ProgressDisplay(String task, Supplier<ProgressSnapshot> source, PrintWriter lines, boolean enabled, boolean showPhase) {
        this.source = source;
        this.showPhase = showPhase;
        this.last = source.get();
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gsi-progress");
            t.setDaemon(true);
            return t;
        });
        if (!enabled) {
            bar = null;
        } else if (System.console() != null) {
            bar = new ProgressBarBuilder()
                    .setTaskName(task)
                    .setInitialMax(Math.max(1, last.rangesTotal()))
                    .setStyle(ProgressBarStyle.ASCII)
                    .setUpdateIntervalMillis(500)
                    .setUnit(" ranges", 1)
                    .setConsumer(new ConsoleProgressBarConsumer(System.err))
                    .setEtaFunction(state -> Optional.ofNullable(last.eta()))
                    .build();
            timer.scheduleAtFixedRate(this::update, 0, 500, TimeUnit.MILLISECONDS);
        } else {
            bar = null;
            timer.scheduleAtFixedRate(() -> {
                lines.println(task + " " + source.get().line());
                lines.flush();
            }, LINE_SECONDS, LINE_SECONDS, TimeUnit.SECONDS);
        }
    }

    private void update() {
        ProgressSnapshot s = source.get();
        last = s;
        bar.maxHint(Math.max(1, s.rangesTotal()));
        bar.stepTo(s.rangesDone());
        bar.setExtraMessage(String.format(" %,.0f rows/s%s", s.rowsPerSecond(), showPhase ? " (" + s.phase() + ")" : ""));
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (bar != null) {
            update();
            bar.close();
        }
    }
}

package io.cassandragsi.repair.jobs;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * The jobs of one service process, for the admin API: start a rebuild or a check asynchronously,
 * then read its state, progress and result by id ({@code GET /admin/jobs/{id}}). Maps returned
 * here are JSON-ready. Rebuilds of earlier processes are found through the job ledger (state and
 * finished ranges only). At most one job per kind and target runs at a time in a process.
 *
 * <p>Starting a job throws {@link UnknownTargetException} for a keyspace, table or index that is
 * not indexed, {@link InvalidJobException} for options or a job id that cannot be used, and
 * {@link JobConflictException} when the same job already runs. The HTTP API reaches it through
 * an adapter in {@code http/}.
 */
public final class JobRegistry implements AutoCloseable {
    static final int KEEP_FINISHED = 100;

    /** Starts jobs; {@link Jobs} in production. */
    public interface Launcher {
        JobHandle<RebuildResult> rebuild(String keyspace, String table, String index, RebuildOptions options);

        JobHandle<CheckResult> check(String keyspace, String table, String index, CheckOptions options);
    }

    private record Entry(String kind, String keyspace, String table, String index, Instant started, JobHandle<?> handle) {}

    private final Launcher launcher;
    private final Supplier<JobLedger> ledger;
    private final Map<String, Entry> jobs = new LinkedHashMap<>();

    public JobRegistry(Jobs jobs) {
        this(new Launcher() {
            @Override
            public JobHandle<RebuildResult> rebuild(String keyspace, String table, String index, RebuildOptions options) {
                return jobs.startRebuild(keyspace, table, index, options, ProgressListener.NONE);
            }

            @Override
            public JobHandle<CheckResult> check(String keyspace, String table, String index, CheckOptions options) {
                return jobs.startCheck(keyspace, table, index, options, ProgressListener.NONE);
            }
        }, jobs::ledger);
    }

    public JobRegistry(Launcher launcher, Supplier<JobLedger> ledger) {
        this.launcher = launcher;
        this.ledger = ledger;
    }

    private static String target(String keyspace, String table, String index) {
        return keyspace + "." + table + " " + (index == null ? JobLedger.ALL_INDEXES : index);
    }

    /** Jobs being launched ({@code kind target}): a second start of the same one is refused meanwhile. */
    private final Set<String> starting = new java.util.HashSet<>();

    /** {@link JobConflictException} when a job of this kind and target runs or is being started; else reserves the start until {@link #register}. */
    private synchronized void guard(String kind, String keyspace, String table, String index) {
        String target = target(keyspace, table, index);
        for (Map.Entry<String, Entry> e : jobs.entrySet()) {
            Entry j = e.getValue();
            if (!j.handle().isDone() && j.kind().equals(kind) && target(j.keyspace(), j.table(), j.index()).equals(target)) {
                throw new JobConflictException("a " + kind + " of " + target + " is running: " + e.getKey());
            }
        }
        if (!starting.add(kind + " " + target)) {
            throw new JobConflictException("a " + kind + " of " + target + " is starting");
        }
    }

    private synchronized void release(String kind, String keyspace, String table, String index) {
        starting.remove(kind + " " + target(keyspace, table, index));
    }

    private synchronized String register(String kind, String keyspace, String table, String index, JobHandle<?> handle) {
        starting.remove(kind + " " + target(keyspace, table, index));
        jobs.put(handle.id(), new Entry(kind, keyspace, table, index, Instant.now(), handle));
        List<String> finished = new ArrayList<>();
        jobs.forEach((id, e) -> {
            if (e.handle().isDone()) {
                finished.add(id);
            }
        });
        for (int i = 0; i < finished.size() - KEEP_FINISHED; i++) {
            jobs.remove(finished.get(i));
        }
        return handle.id();
    }

    /**
     * Starts a rebuild and returns its id; {@code index} null means every index of the table.
     *
     * @throws UnknownTargetException the keyspace, table or index is not indexed
     * @throws InvalidJobException the options or the job id cannot be used
     * @throws JobConflictException a rebuild of the same target runs or is starting
     */
    public String startRebuild(String keyspace, String table, String index, RebuildOptions options) {
        guard(Jobs.REBUILD, keyspace, table, index);
        try {
            return register(Jobs.REBUILD, keyspace, table, index, launcher.rebuild(keyspace, table, index, options));
        } catch (UnknownTargetException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new InvalidJobException(e.getMessage(), e);
        } finally {
            release(Jobs.REBUILD, keyspace, table, index);
        }
    }

    /** Starts a check and returns its id; throws like {@link #startRebuild}. */
    public String startCheck(String keyspace, String table, String index, CheckOptions options) {
        guard(Jobs.CHECK, keyspace, table, index);
        try {
            return register(Jobs.CHECK, keyspace, table, index, launcher.check(keyspace, table, index, options));
        } catch (UnknownTargetException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new InvalidJobException(e.getMessage(), e);
        } finally {
            release(Jobs.CHECK, keyspace, table, index);
        }
    }

    /** Asks a running job to stop; false when unknown or finished. */
    public synchronized boolean cancel(String id) {
        Entry e = jobs.get(id);
        if (e == null || e.handle().isDone()) {
            return false;
        }
        e.handle().cancel();
        return true;
    }

    /**
     * State of a job: {@code id, kind, keyspace, table, index, state} (running, done, cancelled,
     * failed), {@code started, progress} (see {@link ProgressSnapshot#toMap}), {@code result}
     * (when finished) and {@code error}. Null when no job has this id.
     */
    public Map<String, Object> status(String id) {
        Entry e;
        synchronized (this) {
            e = jobs.get(id);
        }
        if (e == null) {
            return fromLedger(id);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("kind", e.kind());
        m.put("keyspace", e.keyspace());
        m.put("table", e.table());
        m.put("index", e.index() == null ? JobLedger.ALL_INDEXES : e.index());
        m.put("started", e.started().toString());
        JobHandle<?> h = e.handle();
        Object result = null;
        String error = null;
        String state = JobState.RUNNING.label();
        if (h.isDone()) {
            try {
                result = h.result().join();
            } catch (CompletionException ex) {
                Throwable c = ex.getCause() == null ? ex : ex.getCause();
                error = JobFailure.message(c);
                state = JobState.FAILED.label();
            } catch (java.util.concurrent.CancellationException ex) {
                state = JobState.CANCELLED.label();
            }
        }
        if (result instanceof RebuildResult r) {
            state = r.state().label();
            error = r.state() == JobState.FAILED ? r.message() : null;
            m.put("state", state);
            m.put("progress", h.progress().toMap());
            m.put("result", r.toMap());
        } else if (result instanceof CheckResult c) {
            state = c.state().label();
            error = c.state() == JobState.FAILED ? c.message() : null;
            m.put("state", state);
            m.put("progress", h.progress().toMap());
            m.put("result", c.toMap());
            m.put("drift", c.drift());
        } else {
            m.put("state", state);
            m.put("progress", h.progress().toMap());
            m.put("result", null);
        }
        m.put("error", error);
        return m;
    }

    private Map<String, Object> fromLedger(String id) {
        Optional<JobLedger.Header> found;
        List<JobLedger.RangeDone> ranges;
        try {
            JobLedger l = ledger.get();
            found = l.find(id);
            ranges = found.isPresent() ? l.finished(id) : List.of();
        } catch (RuntimeException ex) {
            return null;
        }
        if (found.isEmpty()) {
            return null;
        }
        JobLedger.Header h = found.get();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", h.id());
        m.put("kind", h.kind());
        m.put("keyspace", h.keyspace());
        m.put("table", h.table());
        m.put("index", h.index());
        m.put("started", h.started() == null ? null : h.started().toString());
        m.put("state", h.state().label());
        m.put("live", false); // not running in this process: a "running" state is what a stopped process left
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("ranges_done", ranges.size());
        p.put("ranges_total", h.splits());
        p.put("rows", ranges.stream().mapToLong(JobLedger.RangeDone::rows).sum());
        p.put("writes", ranges.stream().mapToLong(JobLedger.RangeDone::writes).sum());
        m.put("progress", p);
        m.put("result", null);
        m.put("error", h.state() == JobState.FAILED ? h.message() : null);
        return m;
    }

    /** Status of every job this process knows, oldest first. */
    public List<Map<String, Object>> list() {
        List<String> ids;
        synchronized (this) {
            ids = new ArrayList<>(jobs.keySet());
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (String id : ids) {
            Map<String, Object> s = status(id);
            if (s != null) {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * Cancels every running job and waits up to 30 s for their writes in flight (service shutdown,
     * before the session closes): a rebuild records the ranges it finished and resumes from there.
     */
    @Override
    public void close() {
        List<JobHandle<?>> running = new ArrayList<>();
        synchronized (this) {
            for (Entry e : jobs.values()) {
                if (!e.handle().isDone()) {
                    e.handle().cancel();
                    running.add(e.handle());
                }
            }
        }
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        for (JobHandle<?> h : running) {
            try {
                h.result().get(Math.max(0, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                // failed or still running: nothing more to do at shutdown
            }
        }
    }
}

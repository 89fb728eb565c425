package io.cassandragsi.repair.jobs;

import java.util.Locale;

/** Where a job is. A rebuild that is not {@link #DONE} can be resumed (a killed process leaves {@link #RUNNING}). */
public enum JobState {
    RUNNING, DONE, CANCELLED, FAILED;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}

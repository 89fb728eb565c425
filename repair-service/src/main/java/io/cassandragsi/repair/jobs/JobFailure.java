package io.cassandragsi.repair.jobs;

/**
 * The message a failed job reports (in its result, its HTTP status and the CLI): what went wrong
 * without what the driver said, which names node addresses and repeats CQL (issue 13: error
 * bodies leak neither). The job's log line keeps the whole exception.
 */
final class JobFailure {
    private JobFailure() {}

    static String message(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof com.datastax.oss.driver.api.core.DriverException) {
                return "Cassandra did not answer (" + t.getClass().getSimpleName() + "); the service log has the details";
            }
        }
        return failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
    }
}

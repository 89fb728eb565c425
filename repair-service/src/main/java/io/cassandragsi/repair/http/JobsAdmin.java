package io.cassandragsi.repair.http;

import io.cassandragsi.repair.jobs.JobLedger;
import io.cassandragsi.repair.jobs.JobRegistry;
import io.cassandragsi.repair.jobs.Jobs;
import java.util.Map;

/**
 * The job endpoints of the HTTP API over a {@link JobRegistry}: parses the parameters
 * ({@link JobParams}), starts the job and answers its status. The registry's exceptions (unknown
 * target, invalid job, conflict) pass through to {@link ErrorMapper}.
 */
public final class JobsAdmin implements HttpApi.Admin {
    private final JobRegistry registry;

    public JobsAdmin(JobRegistry registry) {
        this.registry = registry;
    }

    /**
     * {@code POST /admin/{keyspace}/{table}/{index}/{rebuild|check}?params}: starts the job and
     * returns its status (with its id). Index {@code *} means every index of the table.
     */
    @Override
    public Map<String, Object> start(String keyspace, String table, String index, String job, Map<String, String> params) {
        String idx = index == null || index.equals(JobLedger.ALL_INDEXES) ? null : index;
        String id;
        if (Jobs.REBUILD.equals(job)) {
            id = registry.startRebuild(keyspace, table, idx, JobParams.rebuildOptions(params));
        } else if (Jobs.CHECK.equals(job)) {
            id = registry.startCheck(keyspace, table, idx, JobParams.checkOptions(params));
        } else {
            throw HttpError.notFound("no such job kind '" + job + "' (rebuild or check)");
        }
        return registry.status(id);
    }

    /** {@code GET /admin/jobs/{id}}. */
    @Override
    public Map<String, Object> job(String id) {
        Map<String, Object> s = registry.status(id);
        if (s == null) {
            throw HttpError.notFound("no job '" + id + "'");
        }
        return s;
    }
}

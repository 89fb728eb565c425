package io.cassandragsi.trigger;

import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.service.StorageProxy;
import org.apache.cassandra.transport.Dispatcher;
import org.apache.cassandra.triggers.TriggerExecutor;

/**
 * Tells which path called the trigger (docs/design.md section 5): {@code
 * StorageProxy.mutateWithTriggers}, which applies what the trigger returns in a logged batch, or the
 * conditional path ({@code Paxos.cas}), which rejects mutations of other partitions and so fails the
 * client's write if the trigger returned any. The frames are Cassandra 5.0's; a check at load makes
 * sure they still are, and when it fails every write is treated as conditional (markers only,
 * written apart: slower, never a failed write) and the failure is logged and shown in JMX.
 */
final class WritePath {
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private WritePath() {}

    /** The detector for this node: the stack check when the methods it relies on exist, else "always conditional". */
    static BooleanSupplier detector(TriggerMetrics metrics) {
        String problem = selfTest();
        if (problem == null) {
            return WritePath::onBatchlogPath;
        }
        metrics.pathDetection = false;
        IndexTrigger.LOG.error("gsi trigger: cannot tell conditional writes from the others on this Cassandra ({}); every write is"
                + " indexed as a conditional one (markers only, indexed by the repair service)", problem);
        return () -> false;
    }

    /** Null when Cassandra has the methods {@link #onBatchlogPath} relies on, else what is missing. */
    static String selfTest() {
        try {
            StorageProxy.class.getMethod("mutateWithTriggers", List.class, ConsistencyLevel.class, boolean.class, Dispatcher.RequestTime.class);
            TriggerExecutor.class.getMethod("execute", PartitionUpdate.class);
            TriggerExecutor.class.getMethod("execute", java.util.Collection.class);
            return null;
        } catch (NoSuchMethodException | LinkageError e) {
            return "missing " + e.getMessage();
        }
    }

    /**
     * True when Cassandra called the trigger from {@code StorageProxy.mutateWithTriggers}. Looks past
     * our own frames and Cassandra's TriggerExecutor to the first caller, comparing classes by
     * reference: only that one frame's method name is resolved.
     */
    static boolean onBatchlogPath() {
        return WALKER.walk(frames -> frames.limit(12)
                .filter(f -> !f.getDeclaringClass().getName().startsWith("io.cassandragsi.trigger.") && f.getDeclaringClass() != TriggerExecutor.class)
                .findFirst()
                .map(f -> f.getDeclaringClass() == StorageProxy.class && f.getMethodName().equals("mutateWithTriggers"))
                .orElse(false));
    }
}

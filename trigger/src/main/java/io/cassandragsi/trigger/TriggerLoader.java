package io.cassandragsi.trigger;

import java.lang.reflect.Field;
import org.apache.cassandra.triggers.TriggerExecutor;

/**
 * Whether {@code nodetool reloadtriggers} replaced the class loader this jar was loaded by: Cassandra
 * then drops its trigger instances and loads the jar anew, but static state and threads of the old
 * classes live on until they end themselves (docs/design.md section 7). Read from Cassandra's
 * private field, since Cassandra 5.0 offers no callback.
 */
final class TriggerLoader {
    private static volatile boolean superseded;
    private static volatile boolean unknown;

    private TriggerLoader() {}

    /** True once the trigger executor's class loader is not the one that loaded this class (false when that cannot be read). */
    static boolean superseded() {
        if (superseded || unknown) {
            return superseded;
        }
        try {
            Field f = TriggerExecutor.class.getDeclaredField("customClassLoader");
            f.setAccessible(true);
            Object loader = f.get(TriggerExecutor.instance);
            superseded = loader != null && loader != TriggerLoader.class.getClassLoader();
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            unknown = true;
            IndexTrigger.LOG.warn("gsi maintainer: cannot tell a reload of the trigger jar ({}); after nodetool reloadtriggers the old"
                    + " maintainer runs until the node restarts", e.toString());
        }
        return superseded;
    }
}

package io.cassandragsi.repair.cli;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.conf.LocalCluster;
import java.io.PrintWriter;
import java.util.ArrayDeque;
import java.util.Deque;

/** The cluster, session and services of one {@code up}; stopped once, by Ctrl-C or on failure. */
final class UpRunning {
    final LocalCluster cluster;
    final PrintWriter out;
    final Deque<UpService> services = new ArrayDeque<>();
    volatile CqlSession session;
    /** The repair service's own session ({@code --secure}: its least-privilege role), or null. */
    volatile CqlSession serviceSession;
    /** What {@code ./gsi node} talks to, or null before it listens. */
    volatile NodeControl control;
    private boolean stopped;
    private int deadNode = -1;

    UpRunning(LocalCluster cluster, PrintWriter out) {
        this.cluster = cluster;
        this.out = out;
    }

    synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        out.println();
        out.println("stopping...");
        out.flush();
        if (control != null) {
            control.close();
        }
        while (!services.isEmpty()) {
            UpService s = services.pop();
            try {
                s.close();
            } catch (RuntimeException e) {
                out.println("stopping " + s.describe() + " failed: " + e.getMessage());
            }
        }
        if (serviceSession != null) {
            serviceSession.close();
        }
        if (session != null) {
            session.close();
        }
        cluster.stop();
        out.println("stopped.");
        out.flush();
    }

    /**
     * Blocks while every node runs, or is down because {@code ./gsi node} stopped or killed it
     * (Ctrl-C ends the JVM, and the shutdown hook stops everything).
     */
    void awaitNodeExit() throws InterruptedException {
        while (true) {
            for (int i = 0; i < cluster.size(); i++) {
                NodeControl c = control;
                if (!cluster.isRunning(i) && (c == null || !c.downOnPurpose(i))) {
                    synchronized (this) {
                        if (stopped) {
                            Thread.sleep(Long.MAX_VALUE);
                        }
                    }
                    deadNode = i;
                    return;
                }
            }
            Thread.sleep(1000);
        }
    }

    String deadNodeMessage() {
        return "node" + deadNode + " (" + cluster.contactPoint(deadNode) + ") exited; see its log "
                + cluster.nodeLog(deadNode);
    }
}

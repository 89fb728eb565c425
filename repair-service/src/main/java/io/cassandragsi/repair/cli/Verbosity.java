package io.cassandragsi.repair.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** {@code --verbose}: stack traces on failure and debug logging for the project's classes. */
public final class Verbosity {
    private static volatile boolean verbose;

    @Option(names = "--verbose", scope = ScopeType.INHERIT,
            description = "Print stack traces on failure and log at DEBUG level.")
    void setVerbose(boolean value) {
        if (value) {
            verbose = true;
            if (LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext ctx) {
                ctx.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.INFO);
                ctx.getLogger("io.cassandragsi").setLevel(Level.DEBUG);
                ctx.getLogger("com.datastax.oss.driver.internal.core.control.ControlConnection").setLevel(null);
            }
        }
    }

    public static boolean isVerbose() {
        return verbose;
    }
}

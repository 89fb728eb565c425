package io.cassandragsi.repair.cli;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DriverException;
import com.datastax.oss.driver.api.core.ProtocolVersion;
import com.datastax.oss.driver.api.core.cql.ColumnDefinition;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.type.codec.TypeCodec;
import com.datastax.oss.driver.api.core.type.codec.registry.CodecRegistry;
import io.cassandragsi.repair.config.GsiConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code gsi cql}: runs CQL against the configured cluster through the driver and prints the rows
 * of each statement as a table (docs/design.md section 10), so that a machine without cqlsh can write
 * its first rows. Statements run in order; the first that fails stops the run, naming it.
 */
@Command(name = "cql", mixinStandardHelpOptions = true,
        description = "Run CQL statements (separated by ';') against the cluster and print their rows as a table.")
public final class CqlCommand implements Callable<Integer> {
    @Parameters(paramLabel = "STATEMENT", arity = "0..*",
            description = "CQL text; several arguments are joined with spaces (quote it for the shell).")
    List<String> words = new ArrayList<>();

    @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "Read the statements from a file instead.")
    Path file;

    @Option(names = "--max-rows", paramLabel = "N", defaultValue = "1000",
            description = "Rows printed per statement at most (default: ${DEFAULT-VALUE}).")
    int maxRows;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "30",
            description = "Timeout of each statement (default: ${DEFAULT-VALUE}; schema changes wait for agreement too).")
    int timeoutSeconds;

    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (maxRows < 1) {
            throw new IllegalArgumentException("--max-rows must be at least 1, got " + maxRows);
        }
        if (timeoutSeconds < 1) {
            throw new IllegalArgumentException("--timeout must be at least 1 second, got " + timeoutSeconds);
        }
        if ((file == null) == words.isEmpty()) {
            throw new IllegalArgumentException(file == null ? "give CQL statements or -f FILE" : "give CQL statements or -f FILE, not both");
        }
        String text;
        try {
            text = file == null ? String.join(" ", words) : Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CommandFailedException("cannot read " + file + ": " + e.getMessage(), e);
        }
        List<String> statements = CqlScript.split(text);
        if (statements.isEmpty()) {
            throw new IllegalArgumentException("no CQL statement in " + (file == null ? "the arguments" : file.toString()));
        }
        GsiConfig config = connection.load();
        PrintWriter out = spec.commandLine().getOut();
        try (CqlSession session = ConnectionOptions.open(config)) {
            for (int i = 0; i < statements.size(); i++) {
                String cql = statements.get(i);
                ResultSet rs;
                try {
                    rs = session.execute(SimpleStatement.newInstance(cql).setTimeout(Duration.ofSeconds(timeoutSeconds))
                            .setConsistencyLevel(config.consistency().write()));
                } catch (DriverException e) {
                    throw new CommandFailedException("statement " + (i + 1) + " of " + statements.size() + " failed"
                            + (i > 0 ? " (the ones before it ran)" : "") + ": " + shorten(cql) + ": " + e.getMessage(), e);
                }
                print(out, session, rs);
                out.flush();
            }
        }
        return GsiCommand.OK;
    }

    private void print(PrintWriter out, CqlSession session, ResultSet rs) {
        if (rs.getColumnDefinitions().size() == 0) {
            return; // a write or a schema change: nothing to show, like cqlsh
        }
        CodecRegistry codecs = session.getContext().getCodecRegistry();
        ProtocolVersion protocol = session.getContext().getProtocolVersion();
        List<Map<String, Object>> rows = new ArrayList<>();
        boolean more = false;
        for (Row r : rs) {
            if (rows.size() == maxRows) {
                more = true;
                break;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            for (int c = 0; c < r.getColumnDefinitions().size(); c++) {
                ColumnDefinition d = r.getColumnDefinitions().get(c);
                m.put(d.getName().asInternal(), format(codecs.codecFor(d.getType()), r.getBytesUnsafe(c), protocol));
            }
            rows.add(m);
        }
        if (rows.isEmpty()) {
            List<String> names = new ArrayList<>();
            rs.getColumnDefinitions().forEach(d -> names.add(d.getName().asInternal()));
            out.println(String.join(" | ", names));
        } else {
            QueryCommand.print(out, rows);
        }
        out.println("(" + rows.size() + " row" + (rows.size() == 1 ? "" : "s") + (more ? "; more not shown: raise --max-rows" : "") + ")");
    }

    /** A value as cqlsh shows it: text unquoted, everything else as a CQL literal, null as null. */
    static String format(TypeCodec<Object> codec, ByteBuffer bytes, ProtocolVersion protocol) {
        Object value = codec.decode(bytes == null ? null : bytes.duplicate(), protocol);
        if (value == null) {
            return "null";
        }
        return value instanceof String s ? s : codec.format(value);
    }

    private static String shorten(String cql) {
        String oneLine = cql.replaceAll("\\s+", " ");
        return oneLine.length() <= 100 ? oneLine : oneLine.substring(0, 100) + "...";
    }
}

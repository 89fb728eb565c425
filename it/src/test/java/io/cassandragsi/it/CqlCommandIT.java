package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.repair.cli.GsiCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code gsi cql} against the shared node: a first write and read without cqlsh (docs/design.md section 10). */
class CqlCommandIT {
    private record Run(int exit, String out) {}

    private static Run cql(String... args) {
        StringWriter text = new StringWriter();
        PrintWriter pw = new PrintWriter(text, true);
        java.net.InetSocketAddress cp = SharedCluster.contactPoint();
        String[] all = new String[args.length + 3];
        all[0] = "cql";
        all[1] = "--contact-point";
        all[2] = cp.getHostString() + ":" + cp.getPort();
        System.arraycopy(args, 0, all, 3, args.length);
        int exit = new CommandLine(new GsiCommand()).setOut(pw).setErr(pw).execute(all);
        return new Run(exit, text.toString());
    }

    @Test
    void should_run_statements_in_order_and_print_rows_as_a_table() throws Exception {
        Path script = Files.createTempFile("gsi-cql", ".cql");
        Files.writeString(script, """
                CREATE KEYSPACE IF NOT EXISTS it_cql WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
                CREATE TABLE IF NOT EXISTS it_cql.notes (id text PRIMARY KEY, body text, n int); -- a comment; not a statement
                """);
        assertThat(cql("-f", script.toString()).exit()).isZero();

        Run write = cql("INSERT INTO it_cql.notes (id, body, n) VALUES ('a', 'semi;colon and ''quote''', 7);",
                "INSERT INTO it_cql.notes (id, n) VALUES ('b', 8)");
        assertThat(write.exit()).as(write.out()).isZero();
        Run read = cql("SELECT id, body, n FROM it_cql.notes WHERE id IN ('a', 'b')");

        assertThat(read.exit()).as(read.out()).isZero();
        assertThat(read.out()).contains("id | body", "a  | semi;colon and 'quote' | 7", "b  | null", "(2 rows)");
        Run lwt = cql("INSERT INTO it_cql.notes (id) VALUES ('a') IF NOT EXISTS");
        assertThat(lwt.out()).as("a conditional write that did not apply shows the row, as cqlsh does").contains("[applied] | id", "false ");
    }

    @Test
    void should_stop_at_the_first_statement_that_fails_and_name_it() {
        assertThat(cql("CREATE KEYSPACE IF NOT EXISTS it_cql WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};"
                + " CREATE TABLE IF NOT EXISTS it_cql.notes (id text PRIMARY KEY, body text, n int)").exit()).isZero();
        Run r = cql("INSERT INTO it_cql.notes (id) VALUES ('c'); SELEC oops; INSERT INTO it_cql.notes (id) VALUES ('d')");

        assertThat(r.exit()).isNotZero();
        assertThat(r.out()).contains("statement 2 of 3 failed (the ones before it ran): SELEC oops");
        assertThat(cql("SELECT id FROM it_cql.notes WHERE id = 'd'").out()).contains("(0 rows)");
    }
}

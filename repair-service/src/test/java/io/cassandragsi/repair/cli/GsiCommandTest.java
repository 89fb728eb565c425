package io.cassandragsi.repair.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Exit codes and messages of the command line; nothing here needs a running node. */
class GsiCommandTest {
    /** Nothing listens there: connecting fails at once. */
    private static final String NO_CLUSTER = "127.0.3.254:1";

    private static final String DEFINITION = """
            {
              "keyspace": "wiki",
              "table": "revisions",
              "attributes": { "key": "string", "tid": "timeuuid", "length": "varint" },
              "index": [ { "type": "hash", "attribute": "key" }, { "type": "range", "order": "desc", "attribute": "tid" } ],
              "secondaryIndexes": { "by_length": [ { "type": "hash", "attribute": "length" } ] }
            }
            """;

    @TempDir
    Path dir;

    record Run(int code, String out, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = GsiCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private Path write(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @Test
    void should_exit_with_usage_code_when_no_command_is_given() {
        Run r = run();
        assertThat(r.code()).isEqualTo(GsiCommand.USAGE);
        assertThat(r.err()).contains("missing command").contains("schema");
    }

    @Test
    void should_exit_with_usage_code_when_option_is_unknown() {
        assertThat(run("schema", "apply", "--dryrun", "x.json").code()).isEqualTo(GsiCommand.USAGE);
        assertThat(run("schema").code()).isEqualTo(GsiCommand.USAGE);
        // `schema apply` without files is no usage error: it applies the project keyspace alone (see below)
    }

    @Test
    void should_print_one_line_and_exit_1_when_definition_names_an_unknown_attribute() throws IOException {
        Path def = write("bad.json", DEFINITION.replace("{ \"type\": \"hash\", \"attribute\": \"length\" }",
                "{ \"type\": \"hash\", \"attribute\": \"lenght\" }"));
        Run r = run("schema", "apply", "--dry-run", "--contact-point", NO_CLUSTER, def.toString());
        assertThat(r.code()).isEqualTo(GsiCommand.FAILURE);
        assertThat(r.out()).isEmpty();
        assertThat(r.err().strip()).isEqualTo("error: bad.json: index 'by_length': attribute 'lenght': unknown attribute"
                + " (attributes: key, tid, length); nothing was changed");
    }

    @Test
    void should_list_every_bad_definition_when_several_files_are_wrong() throws IOException {
        Path a = write("a.json", "{");
        Path b = write("b.json", DEFINITION.replace("\"varint\"", "\"bigint\""));
        Run r = run("schema", "apply", "--dry-run", a.toString(), b.toString());
        assertThat(r.code()).isEqualTo(GsiCommand.FAILURE);
        assertThat(r.err()).startsWith("error: 2 problems; nothing was changed:")
                .contains("\n  - a.json: not valid JSON").contains("\n  - b.json: attribute 'length': unsupported type 'bigint'");
    }

    @Test
    void should_print_the_full_create_plan_when_dry_run_cannot_reach_the_cluster() throws IOException {
        Path def = write("revisions.json", DEFINITION);
        Run r = run("schema", "apply", "--dry-run", "--contact-point", NO_CLUSTER, def.toString());
        assertThat(r.code()).isEqualTo(GsiCommand.OK);
        assertThat(r.out())
                .startsWith("-- schema apply --dry-run: 1 definition(s) (wiki.revisions); nothing is executed\n"
                        + "-- cannot connect to Cassandra at " + NO_CLUSTER)
                .contains("-- the cluster was not reached, so this is the full create plan")
                .contains("-- create project keyspace gsi\nCREATE KEYSPACE IF NOT EXISTS \"gsi\"")
                .contains("-- create base table wiki.revisions\nCREATE TABLE IF NOT EXISTS \"wiki\".\"revisions\"")
                .contains("-- create trigger gsi_index on wiki.revisions\nCREATE TRIGGER IF NOT EXISTS");
    }

    @Test
    void should_plan_the_project_keyspace_and_its_tables_when_dry_run_has_no_definition() {
        Run r = run("schema", "apply", "--dry-run", "--contact-point", NO_CLUSTER);
        assertThat(r.code()).as(r.err()).isEqualTo(GsiCommand.OK);
        assertThat(r.out())
                .startsWith("-- schema apply --dry-run: no definition (the project keyspace alone); nothing is executed\n")
                .contains("-- create project keyspace gsi\nCREATE KEYSPACE IF NOT EXISTS \"gsi\"")
                .contains("-- create work queue gsi.queue\nCREATE TABLE IF NOT EXISTS \"gsi\".\"queue\"")
                .contains("-- create shard checkpoints gsi.checkpoints\nCREATE TABLE IF NOT EXISTS \"gsi\".\"checkpoints\"")
                .contains("-- create shard leases gsi.leases\nCREATE TABLE IF NOT EXISTS \"gsi\".\"leases\"")
                .contains("-- create service instances gsi.instances\nCREATE TABLE IF NOT EXISTS \"gsi\".\"instances\"")
                .contains("-- create job ledger gsi.jobs\nCREATE TABLE IF NOT EXISTS \"gsi\".\"jobs\"");
    }

    @Test
    void should_use_given_replication_when_dry_run_creates_keyspaces() throws IOException {
        Path def = write("revisions.json", DEFINITION);
        String rf3 = "{'class': 'NetworkTopologyStrategy', 'datacenter1': 3}";
        Run r = run("schema", "apply", "--dry-run", "--contact-point", NO_CLUSTER, "--replication", rf3, def.toString());
        assertThat(r.out()).contains("CREATE KEYSPACE IF NOT EXISTS \"wiki\" WITH replication = " + rf3 + ";");
        Run bad = run("schema", "apply", "--dry-run", "--contact-point", NO_CLUSTER, "--replication", "3", def.toString());
        assertThat(bad.code()).isEqualTo(GsiCommand.FAILURE);
        assertThat(bad.err()).startsWith("error: --replication must be a CQL map");
    }

    @Test
    void should_fail_with_one_line_when_cluster_is_unreachable_without_dry_run() throws IOException {
        Path def = write("revisions.json", DEFINITION);
        Run r = run("schema", "apply", "--contact-point", NO_CLUSTER, def.toString());
        assertThat(r.code()).isEqualTo(GsiCommand.FAILURE);
        assertThat(r.err()).startsWith("error: cannot connect to Cassandra at " + NO_CLUSTER + " (local datacenter datacenter1)");
        assertThat(r.err().strip().lines()).hasSize(1);
    }

    @Test
    void should_fail_naming_the_key_when_config_has_an_unknown_key() throws IOException {
        Path def = write("revisions.json", DEFINITION);
        Path cfg = write("gsi.yaml", "cassandra:\n  contact_pionts: [127.0.3.1:9042]\n");
        Run r = run("schema", "apply", "--config", cfg.toString(), def.toString());
        assertThat(r.code()).isEqualTo(GsiCommand.FAILURE);
        assertThat(r.err().strip()).startsWith("error: " + cfg + ": key 'cassandra.contact_pionts': unknown key");
    }

    @Test
    void should_expand_directories_to_their_json_files_when_given_a_directory() throws IOException {
        write("b.json", DEFINITION);
        write("a.json", DEFINITION);
        write("notes.txt", "");
        assertThat(SchemaApplyCommand.expand(java.util.List.of(dir)))
                .containsExactly(dir.resolve("a.json"), dir.resolve("b.json"));
    }

    @Test
    void should_fail_when_a_file_does_not_exist() {
        Run r = run("schema", "apply", "--dry-run", dir.resolve("missing.json").toString());
        assertThat(r.code()).isEqualTo(GsiCommand.FAILURE);
        assertThat(r.err().strip()).isEqualTo("error: " + dir.resolve("missing.json") + ": no such file");
    }
}

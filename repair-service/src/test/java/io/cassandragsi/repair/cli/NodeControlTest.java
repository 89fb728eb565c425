package io.cassandragsi.repair.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeControlTest {
    /** Three nodes whose state the actions change, recording what was asked. */
    private static final class FakeNodes implements NodeControl.Nodes {
        final boolean[] running = {true, true, true};
        final List<String> actions = new ArrayList<>();

        @Override
        public int size() {
            return running.length;
        }

        @Override
        public boolean isRunning(int node) {
            return running[node];
        }

        @Override
        public String describe(int node) {
            return "node" + node + " 127.0.0." + (node + 1) + ":9042";
        }

        @Override
        public void kill(int node) {
            actions.add("kill " + node);
            running[node] = false;
        }

        @Override
        public void stop(int node) {
            actions.add("stop " + node);
            running[node] = false;
        }

        @Override
        public void start(int node, java.time.Duration timeout) {
            actions.add("start " + node + (timeout == null ? "" : " within " + timeout.toSeconds() + " s"));
            running[node] = true;
        }
    }

    private final FakeNodes nodes = new FakeNodes();
    private final NodeControl control = new NodeControl(nodes, "t0k3n");

    @Test
    void should_kill_and_start_a_node_and_say_which_nodes_are_down_on_purpose() {
        assertThat(control.handle("t0k3n kill 1")).isEqualTo("ok\nnode1 127.0.0.2:9042  down\n");
        assertThat(control.downOnPurpose(1)).as("up keeps running without it").isTrue();
        nodes.running[2] = false; // exited by itself
        assertThat(control.handle("t0k3n status")).isEqualTo("ok\nnode0 127.0.0.1:9042  up\n"
                + "node1 127.0.0.2:9042  down (stopped or killed by ./gsi node)\nnode2 127.0.0.3:9042  down\n");
        assertThat(control.downOnPurpose(2)).isFalse();
        assertThat(control.handle("t0k3n start 1")).startsWith("ok\nnode1 127.0.0.2:9042  up");
        assertThat(control.downOnPurpose(1)).isFalse();
        assertThat(nodes.actions).containsExactly("kill 1", "start 1");
    }

    @Test
    void should_refuse_a_request_without_the_token_or_with_a_bad_action_or_node_and_do_nothing() {
        assertThat(control.handle("wrong kill 1")).startsWith("error the request does not carry the token");
        assertThat(control.handle(null)).startsWith("error");
        assertThat(control.handle("t0k3n reboot 1")).isEqualTo("error unknown action 'reboot': use status, kill N, stop N or start N\n");
        assertThat(control.handle("t0k3n kill")).isEqualTo("error kill needs one node number, 0 to 2\n");
        assertThat(control.handle("t0k3n stop x")).isEqualTo("error stop needs one node number, 0 to 2\n");
        assertThat(control.handle("t0k3n stop 3")).isEqualTo("error no node 3: this ./gsi up has node0 to node2, numbered from 0\n");
        assertThat(control.handle("t0k3n status 1")).startsWith("error status takes no node number");
        assertThat(nodes.actions).isEmpty();
    }

    @Test
    void should_answer_the_node_command_over_its_port_and_tell_a_missing_up_apart(@TempDir Path dir) throws Exception {
        try (NodeControl listening = new NodeControl(nodes, NodeControl.newToken()).listen(dir)) {
            assertThat(Files.getPosixFilePermissions(dir.resolve(NodeControl.FILE))).as("the token is its owner's")
                    .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
            StringWriter out = new StringWriter();
            int code = new picocli.CommandLine(new NodeCommand()).setOut(new PrintWriter(out, true))
                    .execute("stop", "2", "--work", dir.toString());
            assertThat(code).isZero();
            assertThat(out.toString()).contains("node2 127.0.0.3:9042  down");
            assertThat(nodes.actions).containsExactly("stop 2");
        }
        assertThat(dir.resolve(NodeControl.FILE)).as("removed when up stops").doesNotExist();
        StringWriter err = new StringWriter();
        int code = new picocli.CommandLine(new NodeCommand()).setErr(new PrintWriter(err, true))
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    cmd.getErr().println(e.getMessage());
                    return 1;
                }).execute("status", "--work", dir.toString());
        assertThat(code).isEqualTo(1);
        assertThat(err.toString()).contains("no ./gsi up is running with the work directory");
    }

    @Test
    void should_pass_a_start_timeout_when_one_is_given_and_refuse_a_bad_one() {
        assertThat(control.handle("t0k3n start 1 300")).startsWith("ok\n");
        assertThat(control.handle("t0k3n start 1 0")).startsWith("error the timeout of start must be a positive number of seconds");
        assertThat(control.handle("t0k3n start 1 soon")).startsWith("error the timeout of start");
        assertThat(control.handle("t0k3n kill 1 300")).startsWith("error kill needs one node number");
        assertThat(nodes.actions).containsExactly("start 1 within 300 s");
    }
}

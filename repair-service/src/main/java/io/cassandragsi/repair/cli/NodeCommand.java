package io.cassandragsi.repair.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code gsi node status|kill N|stop N|start N} (docs/design.md section 10): acts on a node of the running {@code ./gsi up}. */
@Command(name = "node", mixinStandardHelpOptions = true,
        description = {"Act on node N of the running ./gsi up from another terminal: status lists its nodes; kill N kills node N"
                + " hard (kill -9, as a crash would); stop N stops it cleanly; start N starts it again on its data and waits until"
                + " it answers CQL, as long as its logs advance (a long commit log replay included), saying every 15 s what it does."
                + " Nodes are numbered from 0, as ./gsi up names them (node0, node1, node2). ./gsi up keeps"
                + " running while a node is down this way."})
public final class NodeCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "ACTION", description = "status, kill, stop or start.")
    String action;

    @Parameters(index = "1", arity = "0..1", paramLabel = "N", description = "The node (not for status).")
    String node;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "With start: give up waiting after this long; the node is"
            + " left running, since it may still be starting (default: wait while it makes progress).")
    Long timeout;

    @Option(names = "--work", paramLabel = "DIR", description = "The work directory of that ./gsi up (default: target/gsi-up in the repository).")
    Path work;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Path dir = (work == null ? UpCommand.home().resolve("target/gsi-up") : work).toAbsolutePath().normalize();
        Path file = dir.resolve(NodeControl.FILE);
        String[] control;
        try {
            control = Files.readString(file, StandardCharsets.UTF_8).trim().split(" ");
        } catch (NoSuchFileException e) {
            throw new CommandFailedException("no ./gsi up is running with the work directory " + dir + " (" + NodeControl.FILE
                    + " is missing): start one with ./gsi up, or name its directory with --work");
        } catch (IOException e) {
            throw new CommandFailedException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (control.length != 2) {
            throw new CommandFailedException(file + " is not what ./gsi up writes (port and token)");
        }
        if (timeout != null && (!action.equals("start") || timeout <= 0)) {
            throw new CommandFailedException("--timeout takes a positive number of seconds, and goes with start only");
        }
        String request = control[1] + " " + action + (node == null ? "" : " " + node) + (timeout == null ? "" : " " + timeout);
        PrintWriter out = spec.commandLine().getOut();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(control[0])), 5_000);
            s.setSoTimeout(0); // starting a node waits while it makes progress, as long as that takes
            s.getOutputStream().write((request + "\n").getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            String first = in.readLine();
            if (first == null) {
                throw new CommandFailedException("./gsi up closed the connection without an answer");
            }
            if (first.startsWith("error ")) {
                throw new CommandFailedException(first.substring("error ".length()));
            }
            for (String line; (line = in.readLine()) != null;) {
                out.println(line);
            }
            out.flush();
            return CommandLine.ExitCode.OK;
        } catch (NumberFormatException e) {
            throw new CommandFailedException(file + " is not what ./gsi up writes (port and token)");
        } catch (IOException e) {
            throw new CommandFailedException("no answer from ./gsi up on 127.0.0.1:" + control[0] + " (" + e.getMessage()
                    + "): has it stopped? (" + file + " is left by one that did not stop cleanly)");
        }
    }
}

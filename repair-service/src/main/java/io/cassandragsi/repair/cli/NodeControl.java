package io.cassandragsi.repair.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What lets {@code ./gsi node} act on the nodes of a running {@code ./gsi up} from another
 * terminal (docs/design.md section 10): {@code up} listens on a port of 127.0.0.1 and writes the port
 * and a random token to {@value #FILE} in its work directory (readable by its owner only);
 * {@code node} sends one line, {@code TOKEN VERB [N]}, and prints the answer: a first line
 * {@code ok} or {@code error MESSAGE}, then what to show. One request at a time: starting a node
 * takes a while, and the nodes are one cluster.
 *
 * <p>Nodes that {@code node} stopped or killed are {@link #downOnPurpose}: {@code up} keeps
 * running without them, where a node that exits by itself ends it.
 */
final class NodeControl implements AutoCloseable {
    static final String FILE = "up.control";

    /** What the control acts on: the nodes of {@code up}'s cluster, numbered from 0. */
    interface Nodes {
        int size();

        boolean isRunning(int node);

        /** "node0 127.0.0.1:9042", as {@code up} names it. */
        String describe(int node);

        void kill(int node);

        void stop(int node);

        /** Starts the node and waits while it makes progress; {@code timeout} (null: none) bounds the wait, the node left running. */
        void start(int node, java.time.Duration timeout);
    }

    private final Nodes nodes;
    private final byte[] token;
    private final Set<Integer> downOnPurpose = ConcurrentHashMap.newKeySet();
    private ServerSocket server;
    private Thread thread;
    private Path file;

    NodeControl(Nodes nodes, String token) {
        this.nodes = nodes;
        this.token = token.getBytes(StandardCharsets.UTF_8);
    }

    /** A random token of 128 bits, in hex. */
    static String newToken() {
        byte[] b = new byte[16];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** True when {@code node} is down because {@code ./gsi node} stopped or killed it. */
    boolean downOnPurpose(int node) {
        return downOnPurpose.contains(node);
    }

    /** The answer to one request line (pure but for the actions on the nodes). */
    String handle(String line) {
        String[] words = line == null ? new String[0] : line.trim().split("\\s+");
        if (words.length < 2 || !MessageDigest.isEqual(words[0].getBytes(StandardCharsets.UTF_8), token)) {
            return "error the request does not carry the token of this ./gsi up (" + FILE + " in its work directory)\n";
        }
        String verb = words[1];
        if (verb.equals("status")) {
            if (words.length != 2) {
                return "error status takes no node number\n";
            }
            StringBuilder out = new StringBuilder("ok\n");
            for (int i = 0; i < nodes.size(); i++) {
                out.append(nodes.describe(i)).append(nodes.isRunning(i) ? "  up" : downOnPurpose(i) ? "  down (stopped or killed by ./gsi node)"
                        : "  down").append('\n');
            }
            return out.toString();
        }
        if (!verb.equals("kill") && !verb.equals("stop") && !verb.equals("start")) {
            return "error unknown action '" + verb + "': use status, kill N, stop N or start N\n";
        }
        int node;
        java.time.Duration timeout = null;
        try {
            if (words.length != 3 && !(verb.equals("start") && words.length == 4)) {
                throw new NumberFormatException();
            }
            node = Integer.parseInt(words[2]);
        } catch (NumberFormatException e) {
            return "error " + verb + " needs one node number, 0 to " + (nodes.size() - 1) + "\n";
        }
        if (words.length == 4) {
            try {
                timeout = java.time.Duration.ofSeconds(Long.parseLong(words[3]));
                if (timeout.isNegative() || timeout.isZero()) {
                    throw new NumberFormatException();
                }
            } catch (NumberFormatException e) {
                return "error the timeout of start must be a positive number of seconds, not '" + words[3] + "'\n";
            }
        }
        if (node < 0 || node >= nodes.size()) {
            return "error no node " + node + ": this ./gsi up has node0" + (nodes.size() > 1 ? " to node" + (nodes.size() - 1) : "")
                    + ", numbered from 0\n";
        }
        try {
            switch (verb) {
                case "kill" -> {
                    downOnPurpose.add(node);
                    nodes.kill(node);
                }
                case "stop" -> {
                    downOnPurpose.add(node);
                    nodes.stop(node);
                }
                default -> {
                    nodes.start(node, timeout);
                    downOnPurpose.remove(node);
                }
            }
        } catch (RuntimeException e) {
            return "error " + verb + " of " + nodes.describe(node) + " failed: " + e.getMessage() + "\n";
        }
        return "ok\n" + nodes.describe(node) + (nodes.isRunning(node) ? "  up" : "  down") + "\n";
    }

    /** Listens on 127.0.0.1 and writes {@value #FILE} into {@code workDir}. */
    NodeControl listen(Path workDir) {
        try {
            server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            file = workDir.resolve(FILE);
            Files.deleteIfExists(file);
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(file, server.getLocalPort() + " " + new String(token, StandardCharsets.UTF_8) + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.TRUNCATE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the control port of ./gsi up: " + e.getMessage(), e);
        }
        thread = new Thread(this::serve, "gsi-up-control");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    private void serve() {
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                s.setSoTimeout(10_000);
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                String line = in.readLine();
                OutputStream out = s.getOutputStream();
                out.write(handle(line != null && line.length() > 200 ? "" : line).getBytes(StandardCharsets.UTF_8));
                out.flush();
            } catch (IOException e) {
                // the client went away, or the server is closing
            }
        }
    }

    @Override
    public void close() {
        try {
            if (server != null) {
                server.close();
            }
            if (file != null) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            // closing anyway
        }
    }
}

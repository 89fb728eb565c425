package io.cassandragsi.repair.cli;

import io.cassandragsi.conf.LocalCluster;
import io.cassandragsi.conf.TlsMaterial;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.schema.TableDef;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.stream.Collectors;

/** What {@code gsi up} prints once everything runs: where to connect, what to try, and the {@code --secure} credentials. */
final class UpWelcome {
    private UpWelcome() {}

    /** What {@code --secure} set up, for the welcome text. */
    record Secured(SecureSetup.Login admin, SecureSetup.Login service, GsiConfig serviceConfig, Path configFile,
            TlsMaterial tls) {}

    private static void printSecure(PrintWriter out, String host, int port, Secured s) {
        out.println();
        out.println("Secure mode: password authentication, authorization, TLS required on the CQL port (client certificates not");
        out.println("required); internode traffic and JMX (127.0.0.1 only, no authentication) are not secured.");
        out.println("  CQL: " + host + ":" + port + " with TLS; the nodes' certificate is signed by a throwaway CA whose key is deleted");
        out.println("  truststore (driver): " + s.tls().truststore() + " (PKCS12, password " + s.tls().truststorePassword() + ")");
        out.println("  CA certificate (cqlsh): " + s.tls().caPem());
        out.println("  superuser (replaces cassandra, which can no longer log in): " + s.admin().role() + " / " + s.admin().password());
        out.println("  repair service role (least privilege, see README Security): " + s.service().role() + " / "
                + s.service().password());
        out.println("  HTTP token: " + s.serviceConfig().http().token());
        out.println("  the service's config, secrets in files: " + s.configFile());
        out.println("  cqlsh: SSL_CERTFILE=" + s.tls().caPem() + " cqlsh " + host + " " + port + " --ssl -u " + s.admin().role()
                + " -p '" + s.admin().password() + "'");
    }

    static void printWelcome(PrintWriter out, LocalCluster cluster, List<TableDef> defs, Deque<UpService> services,
            Path workDir, Secured secured) {
        InetSocketAddress first = cluster.contactPoint(0);
        String cp = first.getAddress().getHostAddress() + ":" + first.getPort();
        out.println();
        out.println("Cassandra is up: " + cluster.size() + " node(s), CQL contact point" + (cluster.size() > 1 ? "s " : " ")
                + cluster.contactPoints().stream().map(a -> a.getAddress().getHostAddress() + ":" + a.getPort())
                        .collect(Collectors.joining(", "))
                + ", local datacenter " + cluster.localDatacenter());
        for (TableDef def : defs) {
            out.println("  " + def.qualifiedName() + " with index(es) " + String.join(", ", def.indexes().keySet()));
        }
        List<UpService> started = new ArrayList<>(services);
        java.util.Collections.reverse(started);
        for (UpService s : started) {
            out.println("  " + s.describe());
        }
        if (secured != null) {
            printSecure(out, first.getAddress().getHostAddress(), first.getPort(), secured);
        }
        out.println();
        // ./gsi cql connects with the defaults; on a secure cluster the writer is the superuser, through cqlsh (above)
        String cql = secured == null ? "./gsi cql \"" : "";
        String end = secured == null ? "\"" : ";";
        out.println("Write a version (tids are timeuuids: now() makes one), e.g. with "
                + (secured == null ? "./gsi cql (or cqlsh " + cp + ")" : "cqlsh as " + secured.admin().role() + " (above)") + ":");
        out.println("  " + cql + "INSERT INTO wiki.revisions (key, tid, length, value) VALUES ('Main_Page', now(), 1024, 'Hello')" + end);
        String http = "http://" + HttpDefaults.BIND + ":" + HttpDefaults.PORT;
        String curl = secured == null ? "curl '" : "curl -H 'Authorization: Bearer " + secured.serviceConfig().http().token() + "' '";
        String query = secured == null ? "./gsi query " : "./gsi query --config " + secured.configFile() + " ";
        out.println("and read it through an index, from the index alone, cross-checked with the base table, or as of a moment:");
        out.println("  " + curl + http + "/v1/wiki/revisions//by_length/1024'");
        out.println("  " + curl + http + "/v1/wiki/revisions//by_length/1024?consistent=true&limit=10'");
        out.println("  " + curl + http + "/v1/wiki/revisions//by_length/1024?as_of=2026-01-01T00:00:00Z'");
        out.println("  " + query + "wiki.revisions by_length 1024 --consistent");
        out.println("or in CQL: SELECT * FROM wiki.idx_revisions_by_length_ever WHERE length = 1024;");
        out.println("An unversioned table (rows overwritten in place, like most tables) is indexed the same way:");
        out.println("  " + cql + "INSERT INTO app.users (id, email, country, age, name) VALUES ('u1', 'ann@example.com', 'fr', 34, 'Ann')" + end);
        out.println("  " + curl + http + "/v1/app/users//by_email/ann%40example.com?consistent=true'");
        out.println("  " + curl + http + "/v1/app/users//by_country/fr?ge=30'");
        out.println();
        out.println("Next:");
        if (secured == null) {
            out.println("  ./gsi schema apply --dry-run --contact-point " + cp + " " + UpCommand.EXAMPLES
                    + "    # compare the definitions with the cluster");
        } else {
            out.println("  ./gsi schema apply needs the superuser: a config like " + secured.configFile().getFileName()
                    + " with username " + secured.admin().role());
        }
        out.println("  logs: " + workDir + "/node0/logs/system.log");
        out.println("  from another terminal: ./gsi node status, ./gsi node kill|stop|start N (nodes numbered from 0)");
        out.println("  what the repair service is doing: " + (secured == null ? "./gsi status, or " + http + "/ in a browser"
                : "./gsi status --config " + secured.configFile() + " (the page at " + http + "/ needs the HTTP token)"));
        out.println("Ctrl-C stops everything.");
    }

    /** Where {@code up} serves HTTP: the defaults of the config. */
    private static final class HttpDefaults {
        static final String BIND = io.cassandragsi.repair.config.HttpConfig.defaults().bind();
        static final int PORT = io.cassandragsi.repair.config.HttpConfig.defaults().port();
    }
}

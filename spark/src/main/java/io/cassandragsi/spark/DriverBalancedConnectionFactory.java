package io.cassandragsi.spark;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.CqlSessionBuilder;
import com.datastax.oss.driver.api.core.auth.AuthProvider;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.internal.core.loadbalancing.DefaultLoadBalancingPolicy;
import com.datastax.spark.connector.cql.CassandraConnectionFactory;
import com.datastax.spark.connector.cql.CassandraConnectorConf;
import com.datastax.spark.connector.cql.DefaultConnectionFactory$;
import com.datastax.spark.connector.cql.IpBasedContactInfo;
import scala.Option;

/**
 * The connector's sessions with the driver's own load balancing policy (token aware, local
 * datacenter) in place of the connector's {@code LocalNodeFirstLoadBalancingPolicy}, whose query
 * plan, built with Scala collections for every request, took about a seventh of the Spark
 * rebuild's CPU (docs/performance.md, "Bulk rebuild: Spark against the service"). Everything else
 * is the connector's configuration ({@code spark.cassandra.*}: contact points, timeouts, SSL,
 * credentials); without a local datacenter, or with a cloud bundle or a driver profile file, the
 * connector's own factory is used unchanged. Named by {@code spark.cassandra.connection.factory}.
 */
public final class DriverBalancedConnectionFactory implements CassandraConnectionFactory {
    private static final long serialVersionUID = 1L;

    @Override
    public CqlSession createSession(CassandraConnectorConf conf) {
        if (!(conf.contactInfo() instanceof IpBasedContactInfo contact) || conf.localDC().isEmpty()) {
            return DefaultConnectionFactory$.MODULE$.createSession(conf);
        }
        DriverConfigLoader loader = DefaultConnectionFactory$.MODULE$.connectorConfigBuilder(conf, DriverConfigLoader.programmaticBuilder())
                .withClass(DefaultDriverOption.LOAD_BALANCING_POLICY_CLASS, DefaultLoadBalancingPolicy.class)
                .build();
        CqlSessionBuilder builder = CqlSession.builder().withConfigLoader(loader);
        Option<AuthProvider> auth = contact.authConf().authProvider();
        if (auth.isDefined()) {
            builder = builder.withAuthProvider(auth.get());
        }
        return builder.build();
    }
}

// Writes the runtime classpath of org.apache.cassandra:cassandra-all, resolved on its own,
// to target/classes/io/cassandragsi/conf/cassandra.classpath (one jar per line).
//
// Why not dependency:build-classpath: in this module cassandra-all shares a graph with
// java-driver-core, and Maven's mediation then hands Cassandra the driver's netty-handler
// (4.1.94 instead of 4.1.119), drops jffi's native jar, and widens the shared jars to
// compile scope so that includeScope=provided misses them. Resolving cassandra-all alone,
// with Maven's own resolver and session (settings, mirrors, offline mode), gives exactly
// the classpath that Cassandra's pom asks for.
import org.eclipse.aether.artifact.DefaultArtifact
import org.eclipse.aether.collection.CollectRequest
import org.eclipse.aether.graph.Dependency
import org.eclipse.aether.resolution.DependencyRequest
import org.eclipse.aether.RepositorySystem

def version = project.properties['cassandra.version']
def system = session.container.lookup(RepositorySystem)
def collect = new CollectRequest()
collect.rootArtifact = new DefaultArtifact('io.cassandragsi:cassandra-node:pom:' + version)
collect.addDependency(new Dependency(new DefaultArtifact("org.apache.cassandra:cassandra-all:${version}"), 'runtime'))
collect.repositories = project.remoteProjectRepositories
def result = system.resolveDependencies(session.repositorySession, new DependencyRequest(collect, null))

def jars = result.artifactResults.collect { it.artifact.file }.findAll { it != null && it.name.endsWith('.jar') }
if (!jars.any { it.name == "cassandra-all-${version}.jar" }) {
    throw new IllegalStateException("cassandra-all-${version}.jar missing from the resolved classpath: " + jars)
}
def out = new File(project.build.outputDirectory, 'io/cassandragsi/conf/cassandra.classpath')
out.parentFile.mkdirs()
out.text = jars.collect { it.absolutePath }.join('\n') + '\n'
log.info("Cassandra ${version} node classpath: ${jars.size()} jars -> ${out}")

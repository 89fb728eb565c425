// Writes cassandra-gsi-VERSION.tar.gz.sha256 beside the tarball (dist/pom.xml, after step 3), in the
// format of sha256sum, and prints the tarball's size.
import java.nio.file.Files
import java.nio.file.Path
import java.security.MessageDigest

String name = project.properties['gsi.release.name'] + '.tar.gz'
Path tarball = Path.of(project.build.directory).resolve(name)
if (!Files.isRegularFile(tarball)) {
    throw new IllegalStateException("the tarball ${tarball} is missing: the assembly did not write it")
}
MessageDigest md = MessageDigest.getInstance('SHA-256')
Files.newInputStream(tarball).withCloseable { input ->
    byte[] buf = new byte[1 << 16]
    int n
    while ((n = input.read(buf)) > 0) {
        md.update(buf, 0, n)
    }
}
Files.writeString(tarball.resolveSibling(name + '.sha256'), md.digest().encodeHex().toString() + '  ' + name + '\n')
log.info("${name}: ${String.format('%.1f', Files.size(tarball) / 1048576.0)} MiB")

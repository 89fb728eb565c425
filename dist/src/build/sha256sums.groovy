// Writes SHA256SUMS into the release's tree (dist/pom.xml, step 2): one line per file, in the format
// of sha256sum, so that `sha256sum -c SHA256SUMS` in an unpacked release checks every file.
import java.nio.file.Files
import java.nio.file.Path
import java.security.MessageDigest

Path tree = Path.of(project.properties['gsi.release.tree'])
if (!Files.isDirectory(tree)) {
    throw new IllegalStateException("the release tree ${tree} is missing: the assembly step before this one did not run")
}
Path sums = tree.resolve('SHA256SUMS')
List<Path> files = Files.walk(tree).withCloseable { s ->
    s.filter { Files.isRegularFile(it) && it != sums }.sorted().toList()
}
StringBuilder out = new StringBuilder()
for (Path f : files) {
    MessageDigest md = MessageDigest.getInstance('SHA-256')
    Files.newInputStream(f).withCloseable { input ->
        byte[] buf = new byte[1 << 16]
        int n
        while ((n = input.read(buf)) > 0) {
            md.update(buf, 0, n)
        }
    }
    out.append(md.digest().encodeHex().toString()).append('  ').append(tree.relativize(f).toString().replace('\\', '/')).append('\n')
}
Files.writeString(sums, out.toString())
log.info("SHA256SUMS: ${files.size()} files")

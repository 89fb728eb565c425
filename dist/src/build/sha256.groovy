// The release's checksums (dist/pom.xml), in the format of sha256sum. The execution's property
// `step` says which: `tree` writes SHA256SUMS into the release's tree (every file, so that
// `sha256sum -c SHA256SUMS` in an unpacked release checks them all); `tarball` writes
// cassandra-gsi-VERSION.tar.gz.sha256 beside the tarball and prints its size.
import java.nio.file.Files
import java.nio.file.Path
import java.security.MessageDigest

String sha256(Path f) {
    MessageDigest md = MessageDigest.getInstance('SHA-256')
    Files.newInputStream(f).withCloseable { input ->
        byte[] buf = new byte[1 << 16]
        int n
        while ((n = input.read(buf)) > 0) {
            md.update(buf, 0, n)
        }
    }
    return md.digest().encodeHex().toString()
}

String step = binding.hasVariable('step') ? binding.getVariable('step') : null
if (step == 'tree') {
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
        out.append(sha256(f)).append('  ').append(tree.relativize(f).toString().replace('\\', '/')).append('\n')
    }
    Files.writeString(sums, out.toString())
    log.info("SHA256SUMS: ${files.size()} files")
} else if (step == 'tarball') {
    String name = project.properties['gsi.release.name'] + '.tar.gz'
    Path tarball = Path.of(project.build.directory).resolve(name)
    if (!Files.isRegularFile(tarball)) {
        throw new IllegalStateException("the tarball ${tarball} is missing: the assembly did not write it")
    }
    Files.writeString(tarball.resolveSibling(name + '.sha256'), sha256(tarball) + '  ' + name + '\n')
    log.info("${name}: ${String.format('%.1f', Files.size(tarball) / 1048576.0)} MiB")
} else {
    throw new IllegalStateException("sha256.groovy: the property step must be tree or tarball, not ${step}")
}

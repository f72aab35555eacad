package io.cyclium.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import io.cyclium.cluster.actors.LongWork;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * The product EAR (or Micro WAR), byte for byte, plus {@code lib/cyclium-smoke-actors.jar}
 * ({@code WEB-INF/lib/} in the WAR) (the classes of
 * {@code io.cyclium.servers.actors}, the cluster tests' {@code LongWork} they extend, and a
 * beans.xml): the product gains a slow test actor and nothing else. A jar in lib/ is a bean
 * archive every module of the EAR sees.
 */
final class SmokeArchive {

    private SmokeArchive() {
    }

    static Path ear(Path productEar, Path out) {
        return build(productEar, "lib/", out);
    }

    static Path microWar(Path productWar, Path out) {
        return build(productWar, "WEB-INF/lib/", out);
    }

    private static Path build(Path productEar, String libDir, Path out) {
        try {
            Files.createDirectories(out.getParent());
            try (ZipFile in = new ZipFile(productEar.toFile()); OutputStream file = Files.newOutputStream(out);
                 ZipOutputStream ear = new ZipOutputStream(file)) {
                for (ZipEntry e : java.util.Collections.list(in.entries())) {
                    ear.putNextEntry(new ZipEntry(e.getName()));
                    try (InputStream data = in.getInputStream(e)) {
                        data.transferTo(ear);
                    }
                    ear.closeEntry();
                }
                ear.putNextEntry(new ZipEntry(libDir + "cyclium-smoke-actors.jar"));
                ear.write(actorsJar());
                ear.closeEntry();
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot build the smoke archive from " + productEar, e);
        }
    }

    private static byte[] actorsJar() throws IOException {
        Path classes = Path.of("target/test-classes").toAbsolutePath();
        Path actors = classes.resolve("io/cyclium/servers/actors");
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (ZipOutputStream jar = new ZipOutputStream(bytes); Stream<Path> files = Files.list(actors)) {
            jar.putNextEntry(new ZipEntry("META-INF/beans.xml"));
            jar.write("<beans xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"4.0\" bean-discovery-mode=\"annotated\"/>\n"
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            jar.closeEntry();
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                jar.putNextEntry(new ZipEntry(classes.relativize(f).toString().replace('\\', '/')));
                jar.write(Files.readAllBytes(f));
                jar.closeEntry();
            }
            for (Class<?> c : List.of(LongWork.class, LongWork.State.class)) {
                String entry = c.getName().replace('.', '/') + ".class";
                try (InputStream in = c.getClassLoader().getResourceAsStream(entry)) {
                    jar.putNextEntry(new ZipEntry(entry));
                    in.transferTo(jar);
                    jar.closeEntry();
                }
            }
        }
        return bytes.toByteArray();
    }
}

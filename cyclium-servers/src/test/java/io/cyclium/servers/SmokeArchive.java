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
 * The product archive plus a slow test actor (the classes of {@code io.cyclium.servers.actors} and
 * the cluster tests' {@code LongWork} they extend), and nothing else. In the EAR the classes go into
 * {@code cyclium-ejb.jar} itself: Payara Server does not show actors in a bean archive in the EAR's
 * lib/ to the runtime's extension ("no actor server_smoke is deployed"; WildFly does). In the Micro
 * WAR they travel as {@code WEB-INF/lib/cyclium-smoke-actors.jar}, a bean archive of the one module.
 */
final class SmokeArchive {

    private SmokeArchive() {
    }

    static Path ear(Path productEar, Path out) {
        return build(productEar, false, out);
    }

    static Path microWar(Path productWar, Path out) {
        return build(productWar, true, out);
    }

    private static Path build(Path productEar, boolean war, Path out) {
        try {
            Files.createDirectories(out.getParent());
            try (ZipFile in = new ZipFile(productEar.toFile()); OutputStream file = Files.newOutputStream(out);
                 ZipOutputStream ear = new ZipOutputStream(file)) {
                for (ZipEntry e : java.util.Collections.list(in.entries())) {
                    ear.putNextEntry(new ZipEntry(e.getName()));
                    try (InputStream data = in.getInputStream(e)) {
                        if (!war && e.getName().equals("cyclium-ejb.jar")) {
                            ear.write(withActors(data.readAllBytes()));
                        } else {
                            data.transferTo(ear);
                        }
                    }
                    ear.closeEntry();
                }
                if (war) {
                    ear.putNextEntry(new ZipEntry("WEB-INF/lib/cyclium-smoke-actors.jar"));
                    ear.write(withActors(null));
                    ear.closeEntry();
                }
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot build the smoke archive from " + productEar, e);
        }
    }

    /** The given jar (or a new one with a beans.xml, when null) with the actor classes added. */
    private static byte[] withActors(byte[] jarBytes) throws IOException {
        Path classes = Path.of("target/test-classes").toAbsolutePath();
        Path actors = classes.resolve("io/cyclium/servers/actors");
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (ZipOutputStream jar = new ZipOutputStream(bytes); Stream<Path> files = Files.list(actors)) {
            if (jarBytes == null) {
                jar.putNextEntry(new ZipEntry("META-INF/beans.xml"));
                jar.write("<beans xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"4.0\" bean-discovery-mode=\"annotated\"/>\n"
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
                jar.closeEntry();
            } else {
                try (java.util.zip.ZipInputStream in = new java.util.zip.ZipInputStream(new java.io.ByteArrayInputStream(jarBytes))) {
                    for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
                        jar.putNextEntry(new ZipEntry(e.getName()));
                        in.transferTo(jar);
                        jar.closeEntry();
                    }
                }
            }
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

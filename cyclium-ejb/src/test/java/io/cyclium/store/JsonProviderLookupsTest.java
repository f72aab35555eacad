package io.cyclium.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code jakarta.json.Json}'s static factories look the JSON provider up on every call (an OSGi
 * probe that throws, then a service-loader scan of the class path): on the paths that advance
 * workflow steps that was a fifth of the node's CPU. Our classes build JSON through {@link Jsons},
 * whose provider is looked up once.
 */
class JsonProviderLookupsTest {

    /** A class file's constant-pool entry naming exactly {@code jakarta/json/Json}: tag 1 (UTF-8), length 17, the name. */
    private static final byte[] JSON_CLASS_ENTRY = entry("jakarta/json/Json");

    @Test
    void no_class_of_the_runtime_calls_the_json_factories_that_look_the_provider_up_each_time() throws Exception {
        Path classes = Path.of(Jsons.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> callers;
        try (Stream<Path> files = Files.walk(classes)) {
            callers = files.filter(f -> f.toString().endsWith(".class")).filter(JsonProviderLookupsTest::namesJsonClass)
                    .map(f -> classes.relativize(f).toString()).sorted().toList();
        }
        assertEquals(List.of(), callers, "build JSON through io.cyclium.store.Jsons instead");
    }

    @Test
    void the_scan_finds_a_class_that_names_the_factories() throws IOException, URISyntaxException {
        // this test class names jakarta.json.Json below: the scan must see it, or it proves nothing
        Path self = Path.of(JsonProviderLookupsTest.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve(JsonProviderLookupsTest.class.getName().replace('.', '/') + ".class");
        assertTrue(namesJsonClass(self), "the scan does not recognise a reference to jakarta.json.Json");
        assertTrue(jakarta.json.Json.createObjectBuilder().build().isEmpty());
    }

    private static boolean namesJsonClass(Path classFile) {
        try {
            byte[] bytes = Files.readAllBytes(classFile);
            outer:
            for (int i = 0; i <= bytes.length - JSON_CLASS_ENTRY.length; i++) {
                for (int j = 0; j < JSON_CLASS_ENTRY.length; j++) {
                    if (bytes[i + j] != JSON_CLASS_ENTRY[j]) {
                        continue outer;
                    }
                }
                return true;
            }
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] entry(String internalName) {
        byte[] name = internalName.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[name.length + 3];
        out[0] = 1;
        out[1] = (byte) (name.length >> 8);
        out[2] = (byte) name.length;
        System.arraycopy(name, 0, out, 3, name.length);
        return out;
    }
}

package io.cyclium.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.rotation.CommitRotation;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

class MariadbRotationTest {

    @Test
    void every_rotating_class_is_in_exactly_one_slot_and_each_is_the_mariadb_twin_of_a_postgresql_class_that_always_runs()
            throws Exception {
        List<Class<?>> rotating = clusterClasses().stream().filter(MariadbRotationTest::rotates).toList();
        List<String> slotted = MariadbRotation.SLOTS.stream().flatMap(List::stream).toList();

        assertThat(rotating).hasSizeGreaterThanOrEqualTo(5);
        assertThat(slotted).doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(rotating.stream().map(MariadbRotation::name).toList());
        for (Class<?> twin : rotating) {
            assertThat(twin.getSimpleName()).isEqualTo("OnMariadb");
            Class<?> postgresql = Class.forName(twin.getEnclosingClass().getName() + "$OnPostgresql");
            assertThat(rotates(postgresql)).as(MariadbRotation.name(postgresql) + " runs in every build").isFalse();
        }
    }

    @Test
    void successive_commits_go_round_every_slot_and_the_same_commit_runs_the_same_twins() {
        List<String> ran = new ArrayList<>();
        for (long commits = 500; commits < 500 + MariadbRotation.SLOTS.size(); commits++) {
            long count = commits;
            CommitRotation.Selection chosen = CommitRotation.select("cyclium.cluster.rotation", MariadbRotation.SLOTS, "rotation",
                    () -> Optional.of(count));
            MariadbRotation.SLOTS.stream().flatMap(List::stream).filter(chosen::runs).forEach(ran::add);
            assertThat(CommitRotation.select("cyclium.cluster.rotation", MariadbRotation.SLOTS, "rotation",
                    () -> Optional.of(count))).isEqualTo(chosen);
        }

        assertThat(ran).containsExactlyInAnyOrderElementsOf(MariadbRotation.SLOTS.stream().flatMap(List::stream).toList());
        assertThat(MariadbRotation.SLOTS.stream().flatMap(List::stream)).allMatch(MariadbRotation.select("all")::runs);
    }

    @Test
    void a_value_it_cannot_read_is_refused_naming_the_property_and_the_value() {
        assertThatThrownBy(() -> MariadbRotation.select("slot:7")).hasMessageContaining("cyclium.cluster.rotation=slot:7")
                .hasMessageContaining("from 0 to " + (MariadbRotation.SLOTS.size() - 1));
        assertThatThrownBy(() -> MariadbRotation.select("sometimes")).hasMessageContaining("cyclium.cluster.rotation=sometimes")
                .hasMessageContaining("all, rotation or slot:N");
    }

    private static boolean rotates(Class<?> type) {
        ExtendWith with = type.getAnnotation(ExtendWith.class);
        return with != null && List.of(with.value()).contains(MariadbRotation.class);
    }

    /** The compiled classes of this package, nested ones included. */
    private static List<Class<?>> clusterClasses() throws IOException, URISyntaxException {
        Path dir = Path.of(MariadbRotation.class.getResource("MariadbRotation.class").toURI()).getParent();
        List<Class<?>> classes = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                String name = f.getFileName().toString().replace(".class", "");
                try {
                    classes.add(Class.forName("io.cyclium.cluster." + name, false, MariadbRotationTest.class.getClassLoader()));
                } catch (ClassNotFoundException | LinkageError e) {
                    throw new IllegalStateException("cannot load " + name, e);
                }
            }
        }
        return classes;
    }
}

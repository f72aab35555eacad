package io.cyclium.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructorCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import jakarta.persistence.Entity;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The package layering docs/architecture.md ("Packages, bottom up") writes down, kept by the compiler's output: the
 * production classes of both modules (EJB and web), imported from their class files, so a
 * fully-qualified name in code counts like an import. The EJB module arrives as target/classes or
 * as its jar, depending on the Maven phase: both are read.
 *
 * <p>Tiers from the bottom up. A package may use packages of lower tiers only: not a higher tier
 * (an upward import), not a peer in its own tier. A package of {@code io.cyclium} that is in no
 * tier fails the test, so every new package is placed on purpose.
 */
class ArchitectureTest {

    static final List<List<String>> TIERS = List.of(
            List.of("config", "problem", "telemetry", "timing", "store"),
            List.of("schema", "keys", "tracing", "audit"),
            List.of("node"),
            List.of("claims", "finding", "output"),
            List.of("episode"),
            List.of("actor"),
            List.of("execution"),
            List.of("runtime"),
            List.of("retry"),
            List.of("recovery", "trigger", "retention", "health", "workflow"),
            List.of("operations", "stats"),
            List.of("demo"),
            List.of("console.security"),
            List.of("api", "console"));

    private static final JavaClasses PRODUCTION = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.cyclium");

    @Test
    void both_modules_are_imported() {
        assertThat(PRODUCTION.contain("io.cyclium.execution.EpisodeTask")).isTrue();
        assertThat(PRODUCTION.contain("io.cyclium.api.EpisodeResource")).isTrue();
    }

    @Test
    void every_package_has_a_place_in_the_layering() {
        Set<String> placed = new TreeSet<>();
        TIERS.forEach(placed::addAll);
        Set<String> unplaced = new TreeSet<>();
        for (JavaClass c : PRODUCTION) {
            String pkg = c.getPackageName().substring("io.cyclium".length()).replaceFirst("^\\.", "");
            if (!placed.contains(pkg)) {
                unplaced.add(pkg.isEmpty() ? "io.cyclium" : "io.cyclium." + pkg);
            }
        }
        assertThat(unplaced).as("packages missing from ArchitectureTest.TIERS and docs/architecture.md (Packages, bottom up)").isEmpty();
    }

    @Test
    void no_package_cycles() {
        slices().matching("io.cyclium.(**)").should().beFreeOfCycles().check(PRODUCTION);
    }

    @Test
    void packages_use_only_lower_tiers() {
        for (int tier = 0; tier < TIERS.size(); tier++) {
            for (String pkg : TIERS.get(tier)) {
                List<String> forbidden = new ArrayList<>();
                for (int other = tier; other < TIERS.size(); other++) {
                    for (String higher : TIERS.get(other)) {
                        if (!higher.equals(pkg)) {
                            forbidden.add("io.cyclium." + higher);
                        }
                    }
                }
                if (forbidden.isEmpty()) {
                    continue;
                }
                noClasses().that().resideInAPackage("io.cyclium." + pkg)
                        .should().dependOnClassesThat().resideInAnyPackage(forbidden.toArray(String[]::new))
                        .as("io.cyclium." + pkg + " uses only lower tiers")
                        .check(PRODUCTION);
            }
        }
    }

    @Test
    void no_entity_reaches_the_api_or_the_console() {
        noClasses().that().resideInAnyPackage("io.cyclium.api..", "io.cyclium.console..")
                .should().dependOnClassesThat().areAnnotatedWith(Entity.class)
                .because("pages and JSON bodies get view records; entities stay behind the facades")
                .check(PRODUCTION);
    }

    private static final Pattern PERSISTENCE_CLASS = Pattern.compile(".*(Store|Queries|Repository|Records)$");

    @Test
    void web_code_constructs_no_persistence_classes() {
        noClasses().that().resideInAnyPackage("io.cyclium.api..", "io.cyclium.console..")
                .should(new ArchCondition<JavaClass>("construct a *Store, *Queries, *Repository or *Records") {
                    @Override
                    public void check(JavaClass web, ConditionEvents events) {
                        for (JavaConstructorCall call : web.getConstructorCallsFromSelf()) {
                            JavaClass target = call.getTargetOwner();
                            if (target.getPackageName().startsWith("io.cyclium")
                                    && PERSISTENCE_CLASS.matcher(target.getSimpleName()).matches()) {
                                events.add(SimpleConditionEvent.satisfied(call, call.getDescription()));
                            }
                        }
                    }
                })
                .because("web code goes through the EJB module's facades, which own transactions and the vendor")
                .check(PRODUCTION);
    }
}

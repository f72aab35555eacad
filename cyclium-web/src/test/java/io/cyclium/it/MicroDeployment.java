package io.cyclium.it;

import java.io.File;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.importer.ZipImporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The WAR Payara Micro runs in production (built by the package phase), deployed unchanged, and a
 * JDBC path from the test JVM into the same H2 file database the node uses (AUTO_SERVER).
 */
final class MicroDeployment {

    private MicroDeployment() {
    }

    static WebArchive productWar() {
        File war = new File(System.getProperty("cyclium.micro.war", "target/cyclium-web-micro.war"));
        if (!war.isFile()) {
            throw new IllegalStateException("Build the WAR first (mvn package): missing " + war.getAbsolutePath());
        }
        return ShrinkWrap.create(ZipImporter.class, "cyclium.war").importFrom(war).as(WebArchive.class);
    }

    /**
     * The product WAR plus the integration-test actors and this package, for in-container tests
     * (AssertJ travels along; JUnit and Arquillian are added by the container).
     */
    static WebArchive productWarWithTestActors() {
        WebArchive war = productWar().addPackages(true, "io.cyclium.it");
        File assertj = new File(org.assertj.core.api.Assertions.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        return war.addAsLibrary(assertj);
    }

    static Connection database() throws SQLException {
        String file = System.getProperty("cyclium.it.h2.file");
        return DriverManager.getConnection("jdbc:h2:file:" + file + ";AUTO_SERVER=TRUE", "sa", "arquillian");
    }
}

package io.cyclium.it;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
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
        openArquillianRunner(war);
        File assertj = new File(org.assertj.core.api.Assertions.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        return war.addAsLibrary(assertj);
    }

    /**
     * Arquillian's test servlet answers the test JVM without credentials: the product web.xml with
     * that one URL added to its open constraint (the most specific pattern wins over /*).
     */
    private static void openArquillianRunner(WebArchive war) {
        String webXml;
        try (InputStream in = war.get("WEB-INF/web.xml").getAsset().openStream()) {
            webXml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String open = "<url-pattern>/api/health</url-pattern>";
        if (!webXml.contains(open)) {
            throw new IllegalStateException("web.xml has no open constraint for /api/health to extend");
        }
        war.delete("WEB-INF/web.xml");
        war.setWebXML(new StringAsset(webXml.replace(open, open + "<url-pattern>/ArquillianServletRunnerEE9</url-pattern>")));
    }

    static Connection database() throws SQLException {
        String file = System.getProperty("cyclium.it.h2.file");
        return DriverManager.getConnection("jdbc:h2:file:" + file + ";AUTO_SERVER=TRUE", "sa", "arquillian");
    }
}

package io.cyclium.schema;

import io.cyclium.store.DatabaseVendor;

import io.cyclium.config.CycliumConfig;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.AccessTimeout;
import jakarta.ejb.Lock;
import jakarta.ejb.LockType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * First bean to start: validates the configuration (a bad value fails the deployment here, before
 * anything runs) and applies sql/&lt;vendor&gt; with Flyway unless {@code cyclium.schema.migrate=false}
 * (DBA-managed schemas). Everything that touches the database depends on this bean.
 *
 * <p>NOT_SUPPORTED: Flyway manages its own transactions; inside a JTA transaction some servers
 * refuse to let it switch autocommit.
 */
@Singleton
@Startup
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class SchemaMigrator {

    public static final String DATASOURCE = "jdbc/cyclium";
    private static final Logger LOG = Logger.getLogger(SchemaMigrator.class.getName());

    /**
     * Where each server binds the server-level datasource {@link #DATASOURCE}: Payara (Micro and
     * Server) under the plain name; WildFly only under {@code java:/jdbc/cyclium} — there an
     * unqualified {@code @Resource(lookup = "jdbc/cyclium")} is resolved under
     * {@code java:comp/env} and fails the deployment (WFLYCTL0412). The persistence unit's
     * {@code jdbc/cyclium} is mapped to {@code java:/} by WildFly itself, so only this bean needs
     * the list.
     */
    static final List<String> DATASOURCE_NAMES = List.of(DATASOURCE, "java:/" + DATASOURCE);

    DataSource dataSource;

    @Inject
    CycliumConfig config;

    private DatabaseVendor vendor;

    @PostConstruct
    void start() {
        LOG.info(() -> "Cyclium starting with " + config);
        this.dataSource = lookupDataSource();
        this.vendor = detectVendor(dataSource);
        if (!config.migrateSchema()) {
            LOG.info(() -> "cyclium.schema.migrate=false: leaving the " + vendor.folder() + " schema to its owners");
            return;
        }
        MigrateResult result = migrate(dataSource, vendor);
        LOG.info(() -> "Cyclium schema on " + vendor.folder() + " is at version " + result.targetSchemaVersion
                + " (" + result.migrationsExecuted + " migrations applied now)");
    }

    private static DataSource lookupDataSource() {
        List<String> tried = new ArrayList<>();
        try {
            InitialContext jndi = new InitialContext();
            for (String name : DATASOURCE_NAMES) {
                try {
                    return (DataSource) jndi.lookup(name);
                } catch (NamingException e) {
                    tried.add(name + " (" + e.getClass().getSimpleName() + ")");
                }
            }
        } catch (NamingException e) {
            tried.add("InitialContext (" + e + ")");
        }
        throw new IllegalStateException("No Cyclium datasource: none of " + tried + " is bound. Create the "
                + "server-level datasource " + DATASOURCE + " first (server-config/ has the commands for "
                + "Payara Micro, Payara Server and WildFly)");
    }

    /** Applies the vendor's migrations. Shared with tests so they load the very same files. */
    public static MigrateResult migrate(DataSource dataSource, DatabaseVendor vendor) {
        return migrate(configure(vendor).dataSource(dataSource));
    }

    /**
     * Applies the migrations of {@code flyway} (from {@link #configure}, with a datasource) to a
     * schema that may hold tables of other owners: see {@link ExistingSchema}.
     */
    public static MigrateResult migrate(FluentConfiguration flyway) {
        ExistingSchema existing = ExistingSchema.of(flyway.getDataSource());
        FluentConfiguration admitted = existing.admit(flyway);
        if (!existing.hasHistory() && !existing.foreignTables().isEmpty()) {
            LOG.info(() -> "The Cyclium " + existing + " holds tables of other owners " + existing.foreignTables()
                    + " and no Cyclium table yet: Flyway records a baseline at version " + ExistingSchema.BASELINE_VERSION
                    + " and applies every migration");
        }
        return admitted.load().migrate();
    }

    /**
     * Flyway settings for a vendor, without a datasource: tests add theirs and run the same files.
     * No baseline on migrate here: {@link #migrate(FluentConfiguration)} decides that from the
     * tables it finds.
     */
    public static FluentConfiguration configure(DatabaseVendor vendor) {
        return Flyway.configure(SchemaMigrator.class.getClassLoader())
                .locations("classpath:db/cyclium/" + vendor.folder())
                .table("cyclium_schema_history")
                .baselineOnMigrate(false);
    }

    public static DatabaseVendor detectVendor(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            return DatabaseVendor.fromProductName(c.getMetaData().getDatabaseProductName());
        } catch (SQLException e) {
            LOG.log(Level.SEVERE, "Cannot reach the Cyclium datasource " + DATASOURCE, e);
            throw new IllegalStateException("Cannot reach the Cyclium datasource " + DATASOURCE + ": " + e.getMessage(), e);
        }
    }

    /**
     * Callers wait for the migration: WildFly holds this singleton's lock while {@link #start()}
     * runs and let beans that inject the vendor ask for it meanwhile (its 5 s default access
     * timeout failed the deployment when Flyway took 20 s on a loaded machine). Nothing may use
     * the database before the schema is there, so waiting is the right answer, not a timeout.
     */
    @Lock(LockType.READ)
    @AccessTimeout(value = 10, unit = TimeUnit.MINUTES)
    public DatabaseVendor vendor() {
        return vendor;
    }
}

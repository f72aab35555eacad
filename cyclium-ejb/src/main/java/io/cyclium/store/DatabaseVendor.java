package io.cyclium.store;

import java.util.Locale;

/**
 * The databases Cyclium ships DDL for. The vendor picks the migration folder (sql/&lt;folder&gt;) and
 * the few SQL fragments that differ between them: all stored times are UTC, and lease arithmetic
 * is done by the database on its own clock.
 */
public enum DatabaseVendor {
    H2("h2",
            "CAST(CURRENT_TIMESTAMP AT TIME ZONE 'UTC' AS TIMESTAMP(6))",
            "CAST(CURRENT_TIMESTAMP AT TIME ZONE 'UTC' AS TIMESTAMP(6)) + CAST(%s AS INTEGER) * INTERVAL '1' SECOND",
            "DATE_TRUNC('MINUTE', %s)",
            "LIMIT %s",
            "DATEADD(MILLISECOND, CAST(%s AS BIGINT), CAST(CURRENT_TIMESTAMP AT TIME ZONE 'UTC' AS TIMESTAMP(6)))",
            "DATEDIFF(MILLISECOND, %s, %s)"),
    // clock_timestamp(), not CURRENT_TIMESTAMP: the latter is frozen at transaction start.
    POSTGRESQL("postgresql",
            "(clock_timestamp() AT TIME ZONE 'UTC')",
            "(clock_timestamp() AT TIME ZONE 'UTC') + CAST(%s AS INTEGER) * INTERVAL '1' SECOND",
            "date_trunc('minute', %s)",
            "LIMIT %s",
            "(clock_timestamp() AT TIME ZONE 'UTC') + CAST(%s AS BIGINT) * INTERVAL '1 millisecond'",
            "CAST(EXTRACT(EPOCH FROM (%2$s - %1$s)) * 1000 AS BIGINT)"),
    MARIADB("mariadb",
            "UTC_TIMESTAMP(6)",
            "UTC_TIMESTAMP(6) + INTERVAL %s SECOND",
            // DATE_FORMAT drops the seconds; the CAST makes the result a DATETIME again, not text
            "CAST(DATE_FORMAT(%s, '%%Y-%%m-%%d %%H:%%i:00') AS DATETIME)",
            "LIMIT %s",
            "UTC_TIMESTAMP(6) + INTERVAL (CAST(%s AS SIGNED) * 1000) MICROSECOND",
            "(TIMESTAMPDIFF(MICROSECOND, %s, %s) DIV 1000)"),
    SQLSERVER("sqlserver",
            "SYSUTCDATETIME()",
            "DATEADD(SECOND, %s, SYSUTCDATETIME())",
            "DATEADD(MINUTE, DATEDIFF(MINUTE, 0, %s), 0)",
            // needs an ORDER BY before it, which every caller has
            "OFFSET 0 ROWS FETCH NEXT %s ROWS ONLY",
            "DATEADD(MILLISECOND, %s, SYSUTCDATETIME())",
            "DATEDIFF_BIG(MILLISECOND, %s, %s)");

    private final String folder;
    private final String utcNow;
    private final String utcNowPlusSeconds;
    private final String minuteOf;
    private final String firstRows;
    private final String utcNowPlusMillis;
    private final String millisBetween;

    DatabaseVendor(String folder, String utcNow, String utcNowPlusSeconds, String minuteOf, String firstRows,
            String utcNowPlusMillis, String millisBetween) {
        this.folder = folder;
        this.utcNow = utcNow;
        this.utcNowPlusSeconds = utcNowPlusSeconds;
        this.minuteOf = minuteOf;
        this.firstRows = firstRows;
        this.utcNowPlusMillis = utcNowPlusMillis;
        this.millisBetween = millisBetween;
    }

    /** Folder under sql/ (and classpath db/cyclium/) holding this vendor's migrations. */
    public String folder() {
        return folder;
    }

    /** SQL expression for the database's current UTC time. */
    public String utcNow() {
        return utcNow;
    }

    /** SQL expression for the database's current UTC time plus a bound number of seconds. */
    public String utcNowPlusSeconds(String parameter) {
        return String.format(utcNowPlusSeconds, parameter);
    }

    /** SQL expression for the database's current UTC time plus a bound number of milliseconds (a retry's backoff). */
    public String utcNowPlusMillis(String parameter) {
        return String.format(utcNowPlusMillis, parameter);
    }

    /** SQL expression for the whole milliseconds from one time to a later one (both SQL expressions). */
    public String millisBetween(String from, String to) {
        return String.format(millisBetween, from, to);
    }

    /** SQL expression for a time column cut down to its minute (seconds and fractions zero). */
    public String minuteOf(String column) {
        return String.format(minuteOf, column);
    }

    /**
     * SQL that ends an ordered SELECT after a bound number of rows ({@code parameter}, e.g.
     * {@code "?4"}): the statement's text then says how many rows it reads, so a plan printed
     * for it is the plan of the real query.
     */
    public String firstRows(String parameter) {
        return String.format(firstRows, parameter);
    }

    /** Recognises the vendor from JDBC metadata ({@code DatabaseMetaData#getDatabaseProductName}). */
    public static DatabaseVendor fromProductName(String productName) {
        String p = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        if (p.contains("h2")) {
            return H2;
        }
        if (p.contains("postgres")) {
            return POSTGRESQL;
        }
        if (p.contains("mariadb") || p.contains("mysql")) {
            return MARIADB;
        }
        if (p.contains("microsoft") || p.contains("sql server")) {
            return SQLSERVER;
        }
        throw new IllegalStateException("Unsupported database \"" + productName
                + "\": Cyclium ships schemas for H2, PostgreSQL, MariaDB and SQL Server");
    }
}

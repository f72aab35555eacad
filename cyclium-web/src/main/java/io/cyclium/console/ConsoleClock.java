package io.cyclium.console;

import io.cyclium.node.DbClock;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * "Now" on the database clock, read once per request: every time in the database was stamped by
 * that clock, so "3 min ago" is measured against it and a node whose own clock drifts still says
 * the right thing. If the database cannot be asked, the node's UTC clock stands in (and the hover
 * text says so).
 */
@Named("clock")
@RequestScoped
public class ConsoleClock {

    private static final Logger LOG = Logger.getLogger(ConsoleClock.class.getName());

    @Inject
    DbClock db;

    @Inject
    ConsoleFormat fmt;

    private LocalDateTime now;
    private boolean fromDatabase;

    public LocalDateTime getNow() {
        if (now == null) {
            try {
                now = db.now();
                fromDatabase = true;
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "database clock unavailable; the console measures ages on this node's clock", e);
                now = LocalDateTime.now(ZoneOffset.UTC);
            }
        }
        return now;
    }

    /** "3 min ago" for a time the database stamped. */
    public String ago(LocalDateTime at) {
        return ConsoleFormat.ago(at, getNow());
    }

    /** How old {@code at} is, in ms, so the page can keep counting without asking again. */
    public long ageMs(LocalDateTime at) {
        return ConsoleFormat.ageMs(at, getNow());
    }

    /** The hover text of a time: the exact UTC instant and which clock stamped it. */
    public String hover(LocalDateTime at) {
        if (at == null) {
            return "";
        }
        getNow();
        return fmt.exact(at) + (fromDatabase ? " · database clock (now " + fmt.exact(now) + ")"
                : " · database clock; age measured on this node's clock");
    }

    /** For a running thing: from {@code from} until now on the database clock. */
    public String since(LocalDateTime from) {
        return from == null ? "" : fmt.between(from, getNow());
    }
}

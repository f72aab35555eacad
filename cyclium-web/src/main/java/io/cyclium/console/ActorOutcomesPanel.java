package io.cyclium.console;

import io.cyclium.stats.ActorOutcomes;
import io.cyclium.stats.StatsQueries;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Named;
import java.util.List;

/** The dashboard's "per actor, last hour" table: read once per request. */
@Named("actorOutcomes")
@RequestScoped
public class ActorOutcomesPanel {

    @EJB
    StatsQueries stats;

    private List<ActorOutcomes.Row> rows;

    public List<ActorOutcomes.Row> getRows() {
        if (rows == null) {
            rows = stats.actorOutcomes(60).actors();
        }
        return rows;
    }

    /** "97.5 %", or "–" when nothing succeeded or failed. */
    public String percent(Double rate) {
        return rate == null ? "–" : String.format(java.util.Locale.ROOT, "%.1f %%", rate * 100);
    }
}

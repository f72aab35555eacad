package io.cyclium.console;

import io.cyclium.episode.EpisodeQueries;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.EpisodeView;
import jakarta.ejb.EJB;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Named;
import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.primefaces.model.FilterMeta;
import org.primefaces.model.LazyDataModel;
import org.primefaces.model.SortMeta;

/** Backs episodes.xhtml: filters and a lazy table, one page per query, never more than the cap per page. */
@Named("episodesPage")
@ViewScoped
public class EpisodesPage implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The largest page the table asks for, whatever a forged request says. */
    static final int PAGE_CAP = 100;

    @EJB
    EpisodeQueries episodes;

    private String actor;
    private String expectation;
    private String status;

    private final LazyDataModel<EpisodeView> model = new LazyDataModel<>() {
        private static final long serialVersionUID = 1L;

        @Override
        public int count(Map<String, FilterMeta> filterBy) {
            return (int) Math.min(Integer.MAX_VALUE, episodes.count(filter()));
        }

        @Override
        public List<EpisodeView> load(int first, int pageSize, Map<String, SortMeta> sortBy, Map<String, FilterMeta> filterBy) {
            return episodes.page(filter(), first, Math.min(pageSize, PAGE_CAP));
        }

        @Override
        public String getRowKey(EpisodeView row) {
            return row.id();
        }
    };

    private EpisodeQueries.Filter filter() {
        return new EpisodeQueries.Filter(actor, expectation, status);
    }

    public LazyDataModel<EpisodeView> getModel() {
        return model;
    }

    public List<String> getStatuses() {
        return Arrays.stream(EpisodeStatus.values()).map(EpisodeStatus::wire).toList();
    }

    public String getActor() {
        return actor;
    }

    public void setActor(String actor) {
        this.actor = actor;
    }

    public String getExpectation() {
        return expectation;
    }

    public void setExpectation(String expectation) {
        this.expectation = expectation;
    }

    public String getStatus() {
        return status;
    }

    public void setStatus(String status) {
        this.status = status;
    }
}

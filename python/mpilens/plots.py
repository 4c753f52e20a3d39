# SPDX-License-Identifier: BSD-3-Clause
"""plots.py: the pictures a person would rather look at than read, as matplotlib figures:
the matrix as a heatmap, the profile's time by communicator and operation, the POP
efficiencies as bars (docs/efficiency.md), and a timeline of the MPI calls of a few ranks
(one bar per call, coloured by operation).
"""
import matplotlib

matplotlib.use("Agg")  # no display needed; the caller saves or shows the figure
import matplotlib.pyplot as plt  # noqa: E402


def plot_matrix(run, kind="p2p", value="bytes", phase=None):
    m = run.matrix(kind, phase, value)
    fig, ax = plt.subplots(figsize=(6, 5))
    image = ax.imshow(m.to_numpy(), cmap="Blues")
    ax.set_xlabel("receiver rank")
    ax.set_ylabel("sender rank")
    ax.set_title(f"{kind} {value}" + (f", phase {phase}" if phase else ""))
    fig.colorbar(image, ax=ax, label=value)
    return fig


def plot_profile(run, top=15):
    p = run.profile
    p = p[~p["operation"].isin(["Init", "Init_thread", "Finalize"])]
    sums = p.groupby(["communicator", "operation"])["time"].sum().nlargest(top)[::-1]
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(sums) + 1.5))
    ax.barh([f"{c} {o}" for c, o in sums.index], sums.to_numpy(), color="#2e86c1")
    ax.set_xlabel("time summed over ranks (s)")
    ax.set_title("MPI time by communicator and operation")
    fig.tight_layout()
    return fig


def plot_efficiency(run):
    e = run.efficiency
    e = e[(e["phase"] == "run") & (e["metric"] != "mpi_share")]  # the POP metrics alone
    fig, ax = plt.subplots(figsize=(7, 0.4 * len(e) + 1.5))
    labels = [m.replace("_", " ") for m in e["metric"]][::-1]
    values = e["value"].to_numpy()[::-1]
    ax.barh(labels, values, color=["#2e86c1" if v >= 0.8 else "#e67e22" for v in values])
    ax.set_xlim(0, 1)
    ax.axvline(0.8, color="grey", linewidth=0.8, linestyle="--")
    for y, v in enumerate(values):
        ax.text(min(v, 1) + 0.01, y, f"{v:.2f}", va="center")
    ax.set_title("efficiency (POP metrics; below 0.8 in orange)")
    fig.tight_layout()
    return fig


def plot_timeline(run, ranks=None, start=None, end=None):
    ev = run.events(ranks, start, end)
    ev = ev[ev["event"].isin(["Enter", "Leave"]) & ev["region"].str.startswith("MPI_",
                                                                               na=False)]
    fig, ax = plt.subplots(figsize=(9, 0.5 * max(1, ev["rank"].nunique()) + 1.5))
    colours = {}
    palette = plt.get_cmap("tab20")
    for (rank, thread), calls in ev.groupby(["rank", "thread"]):
        open_at = []
        for e in calls.itertuples(index=False):
            if e.event == "Enter":
                open_at.append(e.time)
            elif open_at:
                begin = open_at.pop()
                if not open_at:  # outermost call only
                    c = colours.setdefault(e.region, palette(len(colours) % 20))
                    ax.barh(rank + thread * 0.2, e.time - begin, left=begin, height=0.6,
                            color=c)
    ax.set_xlabel("time since the trace's start (s)")
    ax.set_ylabel("rank")
    ax.invert_yaxis()
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colours.values()]
    if handles:
        ax.legend(handles, list(colours), fontsize=7, loc="upper right")
    ax.set_title("MPI calls")
    return fig

"""An InfiniBand port up at a fraction of the others' rate, read from ibstat and ibstatus: the
run is slower, not failed. Ports that are down run at rates of their own; a port on Ethernet is
compared only with three or more Ethernet ports, as the one slow rail among them."""

from __future__ import annotations

from vfix.diagnose import diagnose_text, port_rates

SLOW_STEPS = (
    "[rank0]: iteration 200/10000 | elapsed time per iteration (ms): 2741.3\n"
    "[rank0]: iteration 210/10000 | elapsed time per iteration (ms): 2755.9\n"
)


def ibstat(device: str, state: str, rate: int, layer: str = "InfiniBand") -> str:
    """One device's block as ibstat prints it."""
    return (f"CA '{device}'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n"
            f"\t\tState: {state}\n\t\tPhysical state: LinkUp\n\t\tRate: {rate}\n"
            "\t\tBase lid: 1204\n\t\tLMC: 0\n\t\tSM lid: 1\n"
            f"\t\tPort GUID: 0xa088c20300f13c90\n\t\tLink layer: {layer}\n")


def ibstatus(device: str, rate: str) -> str:
    """One device's block as ibstatus prints it."""
    return (f"Infiniband device '{device}' port 1 status:\n"
            "\tdefault gid:\t fe80:0000:0000:0000:a088:c203:00b1:4e22\n\tbase lid:\t 0x1a3\n"
            "\tsm lid:\t\t 0x1\n\tstate:\t\t 4: ACTIVE\n\tphys state:\t 5: LinkUp\n"
            f"\trate:\t\t {rate}\n\tlink_layer:\t InfiniBand\n")


def test_an_ibstat_port_up_at_a_quarter_of_the_rate() -> None:
    result = diagnose_text(SLOW_STEPS + ibstat("mlx5_0", "Active", 400)
                           + ibstat("mlx5_4", "Active", 100))
    assert result.root_cause == "ib_hca_unusable"
    assert result.candidates[0].signature == "ib-port-rate-below-peers"
    assert "mlx5_4 is up at 100 Gb/s while the other ports run at 400" in (
        result.candidates[0].explanation)


def test_an_ibstatus_port_at_edr_beside_ndr() -> None:
    result = diagnose_text(SLOW_STEPS + ibstatus("mlx5_3", "100 Gb/sec (4X EDR)")
                           + ibstatus("mlx5_4", "400 Gb/sec (4X NDR)"))
    assert result.root_cause == "ib_hca_unusable"
    assert "mlx5_3" in result.candidates[0].explanation


def test_rates_grepped_from_a_loop_over_the_devices() -> None:
    rates = "".join(f"mlx5_{n} Rate: {100 if n == 4 else 400}\n" for n in range(8))
    assert diagnose_text(SLOW_STEPS + rates).root_cause == "ib_hca_unusable"
    # sysfs's rate files: "for d in ...; do echo $d $(cat .../ports/1/rate); done"
    sysfs = "".join(f"mlx5_{n} {100 if n == 0 else 400} Gb/sec ({2 if n == 0 else 4}X "
                    f"{'HDR' if n == 0 else 'NDR'})\n" for n in range(4))
    assert diagnose_text(SLOW_STEPS + sysfs).root_cause == "ib_hca_unusable"
    assert port_rates.read("   100 Gb/sec (2X HDR)") is None  # a rate of no device


def test_equal_rates_are_healthy() -> None:
    log = SLOW_STEPS + ibstat("mlx5_0", "Active", 400) + ibstat("mlx5_1", "Active", 400)
    assert diagnose_text(log).root_cause == "none"


def test_a_port_down_or_on_ethernet_is_not_a_slow_port() -> None:
    down = ibstat("mlx5_0", "Active", 400) + ibstat("mlx5_1", "Down", 10)
    assert diagnose_text(SLOW_STEPS + down).root_cause == "none"
    # a DGX's storage port on Ethernet at 100 beside the compute ports
    ethernet = ibstat("mlx5_0", "Active", 400) + ibstat("mlx5_9", "Active", 100, "Ethernet")
    assert diagnose_text(SLOW_STEPS + ethernet).root_cause == "none"


def test_a_learning_rate_is_not_a_port() -> None:
    log = SLOW_STEPS + "Learning Rate: 3\n" + ibstat("mlx5_0", "Active", 400)
    assert diagnose_text(log).root_cause == "none"


def test_one_roce_rail_at_half_the_rate_of_the_others() -> None:
    rails = "".join(ibstat(f"mlx5_{n}", "Active", 200 if n == 3 else 400, "Ethernet")
                    for n in (2, 3, 4))
    result = diagnose_text(SLOW_STEPS + rails)
    assert result.root_cause == "ib_hca_unusable"
    assert "mlx5_3 is up at 200 Gb/s" in result.candidates[0].explanation
    # two front-end ports at 100 beside one at 400: speeds of their own, not one slow rail
    front_end = "".join(ibstat(f"mlx5_{n}", "Active", 400 if n == 0 else 100, "Ethernet")
                        for n in range(3))
    assert diagnose_text(SLOW_STEPS + front_end).root_cause == "none"


def test_one_slingshot_nic_at_half_speed_in_ethtool() -> None:
    speeds = "".join(f"hsn{n}: Speed: {100000 if n == 2 else 200000}Mb/sLink detected: yes\n"
                     for n in range(4))
    result = diagnose_text(SLOW_STEPS + speeds)
    assert result.root_cause == "ib_hca_unusable"
    assert "hsn2 is up at 100 Gb/s while the other ports run at 200" in (
        result.candidates[0].explanation)
    # a management NIC at 1G beside the fabric is not read at all
    assert port_rates.read("eno1: Speed: 1000Mb/s") is None


def test_rates_pasted_through_pdsh_with_a_host_before_each_line() -> None:
    pdsh = "".join(f"hgx-p1{n}: \t\tRate: 400\nhgx-p1{n}: \t\tState: Active\n" for n in range(4))
    assert diagnose_text(SLOW_STEPS + pdsh + ibstat("mlx5_3", "Active", 100)).root_cause == (
        "ib_hca_unusable")


def test_state_and_rate_joined_on_one_line_by_a_loop() -> None:
    ports = "".join(f"mlx5_{n}  State: Active Physical state: LinkUp Rate: "
                    f"{100 if n == 6 else 400}\n" for n in range(8))
    assert diagnose_text(SLOW_STEPS + ports).root_cause == "ib_hca_unusable"
    assert port_rates.read("mlx5_6  State: Down Physical state: Polling Rate: 10") is None

"""The CNXN banner keeps only features this adbd speaks."""

from __future__ import annotations

import pytest

from mika.sim.adbd.banner import UNSPOKEN_FEATURES, BannerError, wire_banner


def test_unspoken_features_are_dropped_and_the_rest_kept_in_order() -> None:
    features = [
        "shell_v2",
        "cmd",
        "stat_v2",
        "ls_v2",
        "fixed_push_mkdir",
        "abb_exec",
        "sendrecv_v2",
        "sendrecv_v2_zstd",
        "delayed_ack",
        "apex",
    ]
    raw = wire_banner("device::ro.product.name=p;ro.product.model=M;features=" + ",".join(features))
    spoken = b"shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,sendrecv_v2,apex"
    assert raw == b"device::ro.product.name=p;ro.product.model=M;features=" + spoken
    assert not UNSPOKEN_FEATURES & set(raw.decode().split("features=")[1].split(","))


def test_bad_banners_are_refused_with_a_reason() -> None:
    with pytest.raises(BannerError, match="must start with 'device::'"):
        wire_banner("phone::x")
    with pytest.raises(BannerError, match="must fit 4096"):
        wire_banner("device::ro.product.name=" + "x" * 5000)

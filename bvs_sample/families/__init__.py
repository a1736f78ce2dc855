"""The registers the sample writes, one module per register family.

A chunk's ABR records and the ASIC rows they give rise to are drawn by
:class:`bvs_sample.generate.ChunkGenerator`, composed of :mod:`core` (the chunk's dates,
states, counts), :mod:`names` (organisation and trading names), :mod:`asic_companies`,
:mod:`business_names` and :mod:`abr`; they share one RNG per chunk, so each family draws in
the order the record needs it. Each record is then handed to
:class:`bvs_sample.registers.RegisterRows` (the other registers, their own RNG per chunk),
composed of :mod:`background` (part files, dates, people) and :mod:`officeholders`,
:mod:`industry` (industry codes, the trades' state licences), :mod:`enforcement` (adverse
records), :mod:`insolvency` (gazette notices, liquidators), :mod:`ppsr`,
:mod:`public_registers` (tax, APRA, super funds, contracts...), :mod:`charities`,
:mod:`asx`, :mod:`licensees` (AFS and credit), :mod:`banned` and :mod:`advisers`.
Each family is a class over its part's shared draws (``ChunkDraws``, ``BackgroundDraws``),
composed by inheritance rather than held as separate objects: the families of a part draw
from one RNG in the order a record needs them, which is what keeps the files byte for byte
the same for a seed. File layouts are in :mod:`bvs_sample.formats`, the shared writers in
:mod:`bvs_sample.sinks`.
"""

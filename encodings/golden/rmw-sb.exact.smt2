; benchmark generated from rust API
(set-info :status unknown)
(declare-fun c0 () Int)
(declare-fun v2 () Bool)
(declare-fun v3 () Bool)
(declare-fun v5 () Bool)
(declare-fun v4 () Bool)
(declare-fun v6 () Bool)
(declare-fun v7 () Bool)
(assert
 (> c0 2))
(assert
 (< c0 10))
(assert
 (let (($x14 (< c0 8)))
 (let (($x41 (not v2)))
 (or $x41 $x14))))
(assert
 (let (($x14 (< c0 8)))
 (let (($x50 (not $x14)))
 (let (($x48 (not v3)))
 (or $x48 $x50)))))
(assert
 (or v4 v5))
(assert
 (let (($x54 (not v6)))
 (or $x54 v5)))
(assert
 (let (($x57 (not v7)))
 (or $x57 v4)))
(assert
 (let (($x57 (not v7)))
 (or $x57 v3)))
(assert
 (let (($x62 (not v4)))
 (or $x62 v6)))
(assert
 (let (($x65 (not v5)))
 (or $x65 v7)))
(check-sat)
